import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const reporter = fileURLToPath(new URL('./fixtures/reportPackages.mjs', import.meta.url));

/** Runs the `convoy` launcher as `npx convoy` does, reporting the Azure SDK packages the process loads. */
function convoy(...args: string[]): { status: number | null; stdout: string; packages: string[] } {
  const run = spawnSync(process.execPath, ['--import', reporter, 'packages/cli/bin/convoy.mjs', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  const packages = run.stderr
    .split('\n')
    .flatMap((line) => (line.startsWith('package ') ? [line.slice('package '.length)] : []));
  return { status: run.status, stdout: run.stdout, packages };
}

// Start-up is most of a `convoy send` + `convoy verify` round trip on the emulators; `@azure/cosmos` and
// `@azure/identity` alone are about a second of it, and neither command needs them with a connection string.
describe('convoy start-up', () => {
  it('runs in the launcher process and loads neither @azure/cosmos nor @azure/identity for a command that does not use them', () => {
    const help = convoy('send', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Generate test ledgers');
    expect(help.packages).toContain('@azure/service-bus');
    expect(help.packages).not.toContain('@azure/cosmos');
    expect(help.packages).not.toContain('@azure/identity');
  });

  it('is linked into node_modules/.bin by the install, so npx runs it without reading the whole dependency tree first', () => {
    // npx looks for a matching `bin` in the project's own package.json before node_modules/.bin, and on a match it
    // loads every installed package's manifest (about 2 s of CPU here); the link comes from the `file:cli` package.
    expect(realpathSync(join(root, 'node_modules/.bin/convoy'))).toBe(join(root, 'packages/cli/bin/convoy.mjs'));
    expect((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin?: unknown }).bin).toBeUndefined();
  });

  it('passes the exit code and stderr of a failed command through', () => {
    const run = spawnSync(process.execPath, ['packages/cli/bin/convoy.mjs', 'no-such-command'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/unknown command 'no-such-command'/);
  });
});
