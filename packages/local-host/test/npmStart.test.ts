import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/*
 * `npm start` as it runs: the launcher builds its bundles when they are stale (launcher/) and runs them, so
 * this is what checks the bundled host (the vendor bundle's packages, the emulators' threads it starts) end to end.
 */
describe('npm start', () => {
  it('serves a posted ledger from its bundles, then drains and stops on Ctrl-C', { timeout: 120_000 }, async () => {
    // Every port picked by the system, never the defaults.
    const child = spawn(
      process.execPath,
      [
        'packages/local-host/bin/local-host.mjs',
        '--port',
        '0',
        '--servicebus-port',
        '0',
        '--cosmos-port',
        '0',
        '--servicebus-admin-port',
        '0',
        '--console-port',
        '0',
        '--json',
      ],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const api = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const url = /Functions \(HTTP\)\s+(\S+)/.exec(stderr)?.[1];
          if (url && stderr.includes('Ctrl-C')) resolve(url);
        });
        void exited.then((code) => reject(new Error(`npm start exited (${code}) before it was ready:\n${stderr}`)));
      });
      const orderId = `npm-start-${Date.now()}`;
      const ledger = {
        ledgerId: `L-${orderId}`,
        entries: [
          {
            entryId: `${orderId}-e1`,
            orderId,
            sequence: 1,
            type: 'OrderCreated',
            data: { customerId: 'c-1', currency: 'EUR' },
          },
        ],
      };
      const posted = await fetch(`${api}/ledgers`, { method: 'POST', body: JSON.stringify(ledger) });
      expect(posted.status).toBe(202);
      let order: { lastSequence?: number; customerId?: string } = {};
      while (order.lastSequence !== 1) {
        const answer = await fetch(`${api}/orders/${orderId}`);
        order = answer.ok ? ((await answer.json()) as typeof order) : {};
        if (order.lastSequence !== 1) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(order.customerId).toBe('c-1');
      // The ready line times the start, phase by phase.
      expect(stdout).toMatch(/"startup":\[\{"phase":/);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(stderr).toContain('Stopped.');
  });
});
