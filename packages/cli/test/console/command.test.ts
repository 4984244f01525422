import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../../test/support/serviceBusWaits.js';
import { freePort } from './support/consoleStack.js';
import { startE2eStack, type E2eStack } from '../../../../test/e2e/support/e2eStack.js';

const root = fileURLToPath(new URL('../../../..', import.meta.url));

describe('npx convoy console', () => {
  let stack: E2eStack;
  let child: ChildProcess | undefined;
  let adminPort: number;
  beforeAll(async () => {
    adminPort = await freePort();
    stack = await startE2eStack({ serviceBusAdminPort: adminPort, serviceBusAdminHttpsPort: 0 });
  }, 60_000);
  afterAll(async () => {
    if (child?.exitCode === null) child.kill('SIGKILL');
    await stack?.close();
  });

  it(
    'serves the console for the configured target, prints its URL, says what it cannot see from outside the app, and stops on SIGINT',
    { timeout: 60_000 },
    async () => {
      // Prepare
      const args = [
        'packages/cli/bin/convoy.mjs',
        'console',
        '--port',
        '0',
        '--servicebus',
        stack.serviceBusConnection,
        '--http',
        stack.appUrl,
        '--cosmos',
        stack.host.settings.CosmosConnection!,
        '--admin',
        `http://127.0.0.1:${adminPort}/stats`,
      ];
      const run = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      child = run;
      let out = '';
      let err = '';
      run.stdout!.on('data', (chunk: Buffer) => void (out += chunk.toString('utf8')));
      run.stderr!.on('data', (chunk: Buffer) => void (err += chunk.toString('utf8')));
      const exited = new Promise<number | null>((resolve) => run.once('exit', (code) => resolve(code)));

      // Act
      await until(
        () => /Operator console {2}http:\/\/127\.0\.0\.1:\d+\/\n/.test(out) || run.exitCode !== null,
        'the console URL on stdout',
      );
      const url = /Operator console {2}(\S+)/.exec(out)?.[1];
      expect(url, err).toBeDefined();
      const page = await (await fetch(url!)).text();
      run.kill('SIGINT');

      // Assess
      expect(out).toContain('target: Service Bus 127.0.0.1');
      expect(out).not.toContain('read-only');
      expect(page).toContain('<h2>Queues</h2>');
      expect(page).toContain('only the console that <code>npm start</code> serves sees them');
      expect(await exited).toBe(0);
    },
  );
});
