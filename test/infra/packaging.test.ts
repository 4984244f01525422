import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_STAGING_DIR,
  PRODUCTION_INSTALL_ARGS,
  productionLock,
  productionManifest,
  stageFunctionApp,
  type PackageLock,
} from '../../infra/package/stageFunctionApp.js';

const root = resolve(import.meta.dirname, '..', '..');
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-pkg-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function writeFiles(base: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(base, path)), { recursive: true });
    writeFileSync(join(base, path), content);
  }
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => statSync(join(dir, p)).isFile())
    .map((p) => p.split('\\').join('/'))
    .sort();
}

/** Which of `paths` the project's .funcignore excludes, as git (whose syntax the ignore file uses) decides. */
function ignoredByFuncignore(paths: readonly string[]): string[] {
  const dir = tempDir();
  writeFiles(dir, Object.fromEntries(paths.map((p) => [p, ''])));
  writeFileSync(join(dir, '.gitignore'), readFileSync(join(root, '.funcignore')));
  const git = (args: string[]) =>
    spawnSync('git', ['-c', 'core.excludesFile=', ...args], { cwd: dir, encoding: 'utf8' });
  expect(git(['init', '-q']).status).toBe(0);
  const result = git(['check-ignore', '--no-index', ...paths]);
  // Exit 0: some paths are ignored, 1: none are.
  expect([0, 1], result.stderr).toContain(result.status);
  return result.stdout.split('\n').filter(Boolean).sort();
}

describe('.funcignore', () => {
  it('drops development files at the root only, never inside node_modules, and keeps the compiled app', () => {
    const excluded = [
      'test/infra/a.test.ts',
      'src/index.ts',
      'packages/servicebus-emulator/src/main.ts',
      'CHANGELOG.md',
      'docs/contracts.md',
      'infra/main.bicep',
      'scripts/infraBuild.ts',
      'vitest.config.ts',
      'tsconfig.json',
      'local.settings.json',
      'dist/infra/main.json',
      'dist/src/index.js.map',
      'dist/functionapp/host.json',
    ];
    const kept = [
      'host.json',
      'package.json',
      'dist/src/index.js',
      'dist/src/functions/register.js',
      'node_modules/@azure/service-bus/dist-esm/src/util/compat/index.js',
      'node_modules/some-lib/src/index.ts',
      'node_modules/some-lib/test/fixture.js',
      'node_modules/some-lib/scripts/postinstall.js',
      'node_modules/some-lib/index.d.ts',
    ];
    expect(ignoredByFuncignore([...excluded, ...kept])).toEqual([...excluded].sort());
  });

  it('does not exclude node_modules, which azd rejects together with remoteBuild: false', () => {
    expect(ignoredByFuncignore(['node_modules/pino/package.json'])).toEqual([]);
  });
});

describe('azure.yaml', () => {
  const yaml = readFileSync(join(root, 'azure.yaml'), 'utf8');

  it('deploys the staged folder as is', () => {
    expect(yaml).toMatch(new RegExp(`^ {4}dist: ${DEFAULT_STAGING_DIR}$`, 'm'));
    expect(yaml).toMatch(/^ {4}remoteBuild: false$/m);
  });

  it('builds and stages the package before azd zips it, on every shell', () => {
    const runs = [...yaml.matchAll(/^ +run: (.*)$/gm)].map((m) => m[1]);
    expect(runs).toEqual([
      `npm run build && npx tsx infra/package/stageFunctionApp.ts --out ${DEFAULT_STAGING_DIR}`,
      `npm run build && npx tsx infra/package/stageFunctionApp.ts --out ${DEFAULT_STAGING_DIR}`,
    ]);
    expect(yaml).toMatch(/hooks:\n(?: +#.*\n)* +prepackage:\n +posix:[\s\S]*windows:/);
  });
});

describe('productionManifest', () => {
  it('keeps what the host and Node read and drops what only the repository uses', () => {
    const kept = {
      name: 'app',
      version: '1.0.0',
      type: 'module',
      main: 'dist/src/index.js',
      engines: { node: '>=20' },
      dependencies: { pino: '10.4.0' },
      overrides: { a: { b: '1.0.0' } },
    };
    const manifest = {
      ...kept,
      devDependencies: { vitest: '4.1.12' },
      scripts: { start: 'tsx local/main.ts' },
      bin: { convoy: 'cli/bin.js' },
    };
    expect(productionManifest(manifest)).toEqual(kept);
  });
});

const LOCK = {
  lockfileVersion: 3,
  packages: {
    '': { name: 'app', dependencies: { 'prod-lib': '1.0.0' }, devDependencies: { 'dev-lib': '1.0.0' } },
    'node_modules/prod-lib': { version: '1.0.0' },
    'node_modules/@scope/dev-lib': { version: '1.0.0', dev: true },
  },
};

function fixtureProject(): string {
  const dir = tempDir();
  writeFiles(dir, {
    'package.json': JSON.stringify({
      name: 'app',
      type: 'module',
      main: 'dist/src/index.js',
      dependencies: { 'prod-lib': '1.0.0' },
      devDependencies: { '@scope/dev-lib': '1.0.0' },
      scripts: { build: 'tsc' },
    }),
    'package-lock.json': JSON.stringify(LOCK),
    'host.json': '{"version":"2.0"}',
    'dist/src/index.js': 'export {};',
    'dist/src/index.js.map': '{}',
    'dist/src/lib/a.js': 'export {};',
    'dist/src/lib/a.d.ts': 'export {};',
    'dist/infra/main.json': '{}',
    'dist/functionapp/stale.txt': 'from an earlier run',
    'src/index.ts': 'export {};',
    'test/a.test.ts': '',
    'local.settings.json': '{}',
    'node_modules/@scope/dev-lib/index.js': '',
  });
  return dir;
}

const quiet = () => undefined;

describe('productionLock', () => {
  const manifest = {
    name: 'app',
    version: '0.1.0',
    dependencies: { a: '1.0.0' },
    devDependencies: { tool: '0.1.0' },
    workspaces: ['packages/*'],
  };
  const lock: PackageLock = {
    lockfileVersion: 3,
    packages: {
      '': {
        name: 'app',
        version: '0.1.0',
        workspaces: ['packages/*'],
        dependencies: { a: '1.0.0' },
        devDependencies: { tool: '0.1.0' },
      },
      'node_modules/a': { version: '1.0.0', dependencies: { b: '^2.0.0', shared: '1.0.0' } },
      'node_modules/a/node_modules/b': { version: '2.0.0' },
      'node_modules/b': { version: '1.0.0' },
      'node_modules/shared': { version: '1.0.0' },
      'node_modules/tool': { resolved: 'packages/tool', link: true },
      'packages/tool': { version: '0.1.0', dependencies: { 'only-the-tool': '1.0.0', shared: '1.0.0' } },
      'node_modules/only-the-tool': { version: '1.0.0' },
    },
  };

  it("keeps the app's dependencies as Node resolves them and drops the workspaces and what only they use", () => {
    const out = productionLock(lock, manifest);
    expect(Object.keys(out.packages)).toEqual([
      '',
      'node_modules/a',
      'node_modules/a/node_modules/b',
      'node_modules/shared',
    ]);
    expect(out.packages['']).toEqual({ name: 'app', version: '0.1.0', dependencies: { a: '1.0.0' } });
  });

  it('refuses an app that depends on a workspace package', () => {
    expect(() => productionLock(lock, { ...manifest, dependencies: { a: '1.0.0', tool: '0.1.0' } })).toThrow(
      /node_modules\/tool is a workspace package/,
    );
  });

  it("leaves out of this repository's deployment every workspace package and every package only they use", () => {
    const repoManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      workspaces: string[];
    };
    const repoLock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as PackageLock;
    const staged = Object.keys(productionLock(repoLock, repoManifest).packages).filter(Boolean);
    expect(repoManifest.workspaces).toEqual(['packages/*']);
    expect(staged.filter((at) => at.startsWith('packages/') || at.startsWith('node_modules/@ledger-convoy/'))).toEqual(
      [],
    );
    // Nor the packages' link to the app itself (`ledger-convoy`, how they import it by name).
    expect(repoLock.packages['node_modules/ledger-convoy']).toMatchObject({ link: true });
    expect(staged).not.toContain('node_modules/ledger-convoy');
    for (const name of Object.keys(repoManifest.dependencies)) expect(staged).toContain(`node_modules/${name}`);
    // Each of these is a dependency of a tool package only: the emulators, the launcher, the local host, the CLI.
    for (const toolOnly of [
      'azurite',
      'esbuild',
      'peggy',
      '@zeit/cosmosdb-query',
      'hono',
      'playwright-core',
      'tsx',
      'selfsigned',
    ]) {
      expect(staged, toolOnly).not.toContain(`node_modules/${toolOnly}`);
    }
  });
});

describe('stageFunctionApp', () => {
  it('stages the compiled app, host.json, the manifests and production dependencies, and nothing else', () => {
    const project = fixtureProject();
    const installs: string[] = [];
    const staged = stageFunctionApp({
      rootDir: project,
      log: quiet,
      install: (dir) => {
        installs.push(dir);
        // The install sees the app's production manifest and the lock file of exactly its packages.
        expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))).not.toHaveProperty('devDependencies');
        expect(
          Object.keys((JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as PackageLock).packages),
        ).toEqual(['', 'node_modules/prod-lib']);
        writeFiles(dir, { 'node_modules/prod-lib/index.js': '' });
      },
    });
    const out = join(project, DEFAULT_STAGING_DIR);
    expect(staged.outDir).toBe(out);
    expect(installs).toEqual([out]);
    expect(listFiles(out)).toEqual([
      '.funcignore',
      'dist/src/index.js',
      'dist/src/lib/a.js',
      'host.json',
      'node_modules/prod-lib/index.js',
      'package-lock.json',
      'package.json',
    ]);
    expect(staged.files).toBe(7);
    expect(JSON.parse(readFileSync(join(out, 'package.json'), 'utf8'))).toEqual({
      name: 'app',
      type: 'module',
      main: 'dist/src/index.js',
      dependencies: { 'prod-lib': '1.0.0' },
    });
    // An ignore file without patterns: azd zips the folder as it is.
    expect(
      readFileSync(join(out, '.funcignore'), 'utf8')
        .split('\n')
        .filter((l) => l && !l.startsWith('#')),
    ).toEqual([]);
  });

  it('fails when a development-only package was installed', () => {
    const project = fixtureProject();
    const install = (dir: string) => writeFiles(dir, { 'node_modules/@scope/dev-lib/index.js': '' });
    expect(() => stageFunctionApp({ rootDir: project, log: quiet, install })).toThrow(
      /development-only packages were installed: @scope\/dev-lib/,
    );
  });

  it('fails before touching anything when the app is not built', () => {
    const project = fixtureProject();
    rmSync(join(project, 'dist', 'src'), { recursive: true });
    expect(() => stageFunctionApp({ rootDir: project, log: quiet, install: quiet })).toThrow(
      /dist\/src\/index\.js is missing: run `npm run build`/,
    );
    expect(listFiles(join(project, DEFAULT_STAGING_DIR))).toEqual(['stale.txt']);
  });

  it('refuses a staging folder that would delete the project or the compiled app', () => {
    const project = fixtureProject();
    for (const outDir of ['.', 'dist', 'dist/src/out', '..']) {
      expect(() => stageFunctionApp({ rootDir: project, outDir, log: quiet, install: quiet }), outDir).toThrow(
        /refusing to stage/,
      );
    }
    expect(listFiles(join(project, 'dist', 'src'))).toContain('index.js');
  });

  it('installs with npm ci, production packages only, without install scripts', () => {
    expect(PRODUCTION_INSTALL_ARGS.slice(0, 2)).toEqual(['ci', '--omit=dev']);
    expect(PRODUCTION_INSTALL_ARGS).toContain('--ignore-scripts');
  });
});
