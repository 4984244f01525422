import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** Runs a bench script with `args`; resolves with its exit code and output (nothing starts before its arguments pass). */
async function bench(script: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', `bench/${script}.ts`, ...args], {
      cwd: root,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('bench command lines', () => {
  it.each(['pipeline', 'startup', 'quickstart', 'azure'])('%s: --help prints its usage and exits 0', async (script) => {
    // Act
    const result = await bench(script, '--help');
    // Assess
    expect(result).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(new RegExp(`^Usage: npm run bench:${script}`)),
    });
  });

  it('refuses an unknown flag and a value that is not a whole number with the usage and exit code 2', async () => {
    // Act
    const unknown = await bench('pipeline', '--rnus', '2');
    const notWhole = await bench('startup', '--runs', '1.5');
    // Assess
    expect(unknown).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining("Unknown option '--rnus'") });
    expect(unknown.stderr).toContain('Usage: npm run bench:pipeline');
    expect(notWhole).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--runs: expected a whole number ≥ 1, got "1.5"'),
    });
  });

  it('azure: refuses a bad rate, and a deployment it cannot name, with exit code 2 before driving anything', async () => {
    // Act
    const badRate = await bench('azure', '--rates', '10,0');
    const noDeployment = await bench('azure', '--azd-env-file', 'no-such-dir/.env');
    // Assess
    expect(badRate).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringContaining('--rates: expected a whole number ≥ 1, got "0"'),
    });
    expect(noDeployment).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringContaining('Cannot read --azd-env-file no-such-dir/.env'),
    });
  });

  it('cpu-profile: prints one table per .cpuprofile of the directory, busiest package first', async () => {
    // Prepare: one profile, 3 ms in rhea, 1 ms in the app, 2 ms idle.
    const dir = mkdtempSync(join(tmpdir(), 'convoy-cpuprofile-'));
    const profile = {
      nodes: [
        { id: 1, callFrame: { functionName: '(idle)', url: '' } },
        { id: 2, callFrame: { functionName: 'send', url: `file://${root}node_modules/rhea/lib/link.js` } },
        { id: 3, callFrame: { functionName: 'decide', url: `file://${root}src/core/processor/decide.ts` } },
      ],
      startTime: 0,
      endTime: 6000,
      samples: [2, 2, 2, 3, 1, 1],
      timeDeltas: [0, 1000, 1000, 1000, 1000, 1000],
    };
    writeFileSync(join(dir, 'CPU.main.cpuprofile'), JSON.stringify(profile));
    try {
      // Act
      const result = await bench('cpuProfile', '--dir', dir);
      // Assess
      expect(result.code).toBe(0);
      const lines = result.stdout.split('\n');
      expect(lines[0]).toBe('CPU.main.cpuprofile: 0.0 s busy, 0.0 s idle');
      expect(lines.slice(2, 4).map((l) => l.split(/\s{2,}/))).toEqual([
        ['rhea', '3', '75.0 %'],
        ['the app (src/)', '1', '25.0 %'],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('cpu-profile: --help prints its usage and exits 0', async () => {
    // Act
    const result = await bench('cpuProfile', '--help');
    // Assess
    expect(result).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: npm run bench:cpu-profile/) });
  });
});
