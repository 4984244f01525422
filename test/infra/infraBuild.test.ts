import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BicepRestoreError,
  bicepPackageRid,
  compileAndLint,
  findBicepCompiler,
  parseBicepDiagnostics,
} from '../../scripts/infraBuild.js';
import type { BicepCompiler } from '../../scripts/infraBuild.js';

const root = resolve(import.meta.dirname, '..', '..');

function locateCompiler(): BicepCompiler | undefined {
  try {
    return findBicepCompiler({ rootDir: root, log: () => undefined });
  } catch (error) {
    if (error instanceof BicepRestoreError && !process.env.CI) return undefined;
    throw error;
  }
}

const compiler = locateCompiler();

describe('parseBicepDiagnostics', () => {
  it('reads file, position, level, code and message of each diagnostic line and ignores the rest', () => {
    const output = [
      'Building...',
      '/repo/infra/main.bicep(12,7) : Warning no-unused-params: Parameter "x" is declared but never used. [https://aka.ms/bicep/linter/no-unused-params]',
      '/repo/infra/app/a.bicep(3,1) : Error BCP018: Expected the "=" character at this location.',
      'C:\\repo\\infra\\main.bicep(1,1) : Info use-recent-api-versions: Use a more recent API version.',
    ].join('\n');
    expect(parseBicepDiagnostics(output)).toEqual([
      {
        file: '/repo/infra/main.bicep',
        line: 12,
        column: 7,
        level: 'Warning',
        code: 'no-unused-params',
        message: 'Parameter "x" is declared but never used. [https://aka.ms/bicep/linter/no-unused-params]',
      },
      {
        file: '/repo/infra/app/a.bicep',
        line: 3,
        column: 1,
        level: 'Error',
        code: 'BCP018',
        message: 'Expected the "=" character at this location.',
      },
      {
        file: 'C:\\repo\\infra\\main.bicep',
        line: 1,
        column: 1,
        level: 'Info',
        code: 'use-recent-api-versions',
        message: 'Use a more recent API version.',
      },
    ]);
  });
});

describe('bicepPackageRid', () => {
  it('maps the platform to the NuGet runtime id of the Bicep CLI package', () => {
    expect(bicepPackageRid('linux', 'x64')).toEqual({ rid: 'linux-x64', binary: 'bicep' });
    expect(bicepPackageRid('darwin', 'arm64')).toEqual({ rid: 'osx-arm64', binary: 'bicep' });
    expect(bicepPackageRid('win32', 'x64')).toEqual({ rid: 'win-x64', binary: 'bicep.exe' });
    expect(bicepPackageRid('aix', 'ppc64')).toBeUndefined();
  });
});

describe.skipIf(!compiler)('compileAndLint with a real compiler', () => {
  const dirs: string[] = [];
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'convoy-lint-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('reports linter warnings, so the zero-warning gate can fail', () => {
    const dir = tempDir();
    const input = join(dir, 'bad.bicep');
    writeFileSync(input, "param unused string\noutput ok string = 'x'\n");
    const result = compileAndLint(compiler as BicepCompiler, input, join(dir, 'bad.json'));
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ level: 'Warning', code: 'no-unused-params', line: 1 }),
    ]);
  });

  it('throws with the compiler output when the build fails', () => {
    const dir = tempDir();
    const input = join(dir, 'broken.bicep');
    writeFileSync(input, 'param\n');
    expect(() => compileAndLint(compiler as BicepCompiler, input, join(dir, 'broken.json'))).toThrow(
      /bicep build failed[\s\S]*Error BCP/,
    );
  });

  it('finds the cached compiler again without restoring', () => {
    // A restore announces itself on `log`: silence is the proof, not how quickly the call returned.
    const logged: string[] = [];
    const again = findBicepCompiler({ rootDir: root, log: (line) => void logged.push(line) });
    expect(again?.version).toBe(compiler?.version);
    expect(logged).toEqual([]);
  });
});
