/**
 * Stages the function app's deployment package: the folder azd zips and uploads (`dist:` of the `api` service in
 * azure.yaml). Run by the service's `prepackage` hook after `npm run build`:
 *
 *   npx tsx infra/package/stageFunctionApp.ts [--out dist/functionapp]
 *
 * The folder holds only what runs on Azure: the compiled app (`dist/src`, without source maps), `host.json`, a
 * `package.json` reduced to what the host and Node read, the lock file, and production `node_modules` installed
 * by `npm ci --omit=dev`. azd deploys it as is (`remoteBuild: false`), so nothing is rebuilt remotely.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

/** The parts of package.json this script reads or writes. */
export interface PackageManifest {
  readonly name?: string;
  readonly main?: string;
  readonly devDependencies?: Readonly<Record<string, string>>;
  readonly [key: string]: unknown;
}

/** Where `npm run build` (tsconfig.build.json) writes the app, relative to the project root. */
export const COMPILED_APP_DIR = 'dist/src';

/** Default staging folder, relative to the project root; must match `dist:` in azure.yaml. */
export const DEFAULT_STAGING_DIR = 'dist/functionapp';

/** The install that fills the staged `node_modules`: the lock file's production packages, no install scripts. */
export const PRODUCTION_INSTALL_ARGS: readonly string[] = [
  'ci',
  '--omit=dev',
  '--ignore-scripts',
  '--no-audit',
  '--no-fund',
];

// package.json fields the Functions host and Node read at run time (`main`, `type`), or that say what was
// installed (`dependencies`, `overrides`, `engines`); scripts, devDependencies and `bin` describe the repository.
const RUNTIME_FIELDS = [
  'name',
  'version',
  'description',
  'private',
  'license',
  'type',
  'main',
  'engines',
  'dependencies',
  'overrides',
] as const;

// Build by-products Node never loads.
const BUILD_ONLY = [/\.map$/, /\.d\.[cm]?ts$/, /\.tsbuildinfo$/];

/** Options of {@link stageFunctionApp}. */
export interface StageFunctionAppOptions {
  /** Project root (package.json, host.json, the built `dist/src`). */
  readonly rootDir: string;
  /** Staging folder; emptied first. @default `<rootDir>/dist/functionapp` */
  readonly outDir?: string;
  /** Installs production dependencies into the folder. @default `npm ci` with {@link PRODUCTION_INSTALL_ARGS} */
  readonly install?: (dir: string) => void;
  /** Progress lines. @default console.error */
  readonly log?: (line: string) => void;
}

/** What {@link stageFunctionApp} produced. */
export interface StagedPackage {
  readonly outDir: string;
  readonly files: number;
  readonly bytes: number;
}

/** The package.json shipped with the app: only the fields that matter at run time. */
export function productionManifest(manifest: PackageManifest): PackageManifest {
  const out: Record<string, unknown> = {};
  for (const field of RUNTIME_FIELDS) if (manifest[field] !== undefined) out[field] = manifest[field];
  return out;
}

/** The parts of package-lock.json (lockfileVersion 3) this script reads or writes. */
export interface PackageLock {
  readonly packages: Readonly<Record<string, LockEntry>>;
  readonly [key: string]: unknown;
}

/** One package of the lock file, at its `node_modules/…` location (`''` is the project). */
interface LockEntry {
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly dev?: boolean;
  readonly link?: boolean;
  readonly [key: string]: unknown;
}

/**
 * The lock file of the deployed app alone: the project with its production dependencies and every package they
 * reach, resolved as Node does (the nearest `node_modules/<name>` from the dependent's folder up). The workspace
 * packages under packages/ and whatever only they use drop out: the lock file marks those as production packages
 * (a workspace is part of the project), so `npm ci --omit=dev` on the full lock file would install them.
 */
export function productionLock(lock: PackageLock, manifest: PackageManifest): PackageLock {
  const packages = lock.packages;
  const resolve = (from: string, name: string): string | undefined => {
    for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
      const at = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
      if (packages[at] !== undefined) return at;
      if (dir === '') return undefined;
    }
  };
  const root: LockEntry = { ...productionManifest(manifest) };
  const kept: Record<string, LockEntry> = { '': root };
  const queue: [string, LockEntry][] = [['', root]];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const [at, entry] = next;
    for (const name of Object.keys({
      ...entry.dependencies,
      ...entry.optionalDependencies,
      ...entry.peerDependencies,
    })) {
      const found = resolve(at, name);
      if (found === undefined || kept[found] !== undefined) continue;
      const dependency = packages[found] as LockEntry;
      if (dependency.link === true)
        throw new Error(`${found} is a workspace package: the deployed app must not depend on one`);
      kept[found] = dependency;
      queue.push([found, dependency]);
    }
  }
  const ordered = Object.fromEntries(
    Object.keys(packages)
      .filter((at) => kept[at] !== undefined)
      .map((at) => [at, kept[at]]),
  );
  return { ...lock, packages: { '': root, ...ordered } };
}

function npmInstall(dir: string): void {
  // npm is a .cmd shim on Windows, which only a shell can start.
  const result = spawnSync('npm', PRODUCTION_INSTALL_ARGS, {
    cwd: dir,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (result.status !== 0)
    throw new Error(
      `npm ${PRODUCTION_INSTALL_ARGS.join(' ')} failed in ${dir} (exit ${result.status ?? result.error?.message})`,
    );
}

function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir + sep);
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/** Top-level package names in a node_modules folder (`@scope/name` for scoped ones). */
function installedPackages(nodeModules: string): string[] {
  if (!existsSync(nodeModules)) return [];
  return readdirSync(nodeModules).flatMap((entry) => {
    if (entry.startsWith('.')) return [];
    if (!entry.startsWith('@')) return [entry];
    return readdirSync(join(nodeModules, entry)).map((name) => `${entry}/${name}`);
  });
}

function sizeOf(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    // lstat: node_modules/.bin holds links, counted once through their targets.
    const stats = lstatSync(join(dir, entry));
    if (stats.isFile()) {
      files += 1;
      bytes += stats.size;
    }
  }
  return { files, bytes };
}

/**
 * Builds the deployment folder from an already built project (`npm run build`).
 * @throws Error when the app is not built, the install fails, or a development-only package got installed.
 */
export function stageFunctionApp(options: StageFunctionAppOptions): StagedPackage {
  const rootDir = resolve(options.rootDir);
  const outDir = resolve(rootDir, options.outDir ?? DEFAULT_STAGING_DIR);
  const log = options.log ?? ((line: string) => console.error(line));
  const install = options.install ?? npmInstall;

  const manifest = readJson<PackageManifest>(join(rootDir, 'package.json'));
  const appDir = join(rootDir, COMPILED_APP_DIR);
  const main = manifest.main === undefined ? undefined : join(rootDir, manifest.main);
  if (main === undefined || !main.startsWith(appDir + sep))
    throw new Error(`package.json "main" must point into ${COMPILED_APP_DIR}/, got ${String(manifest.main)}`);
  if (!existsSync(main)) throw new Error(`${relative(rootDir, main)} is missing: run \`npm run build\` first`);
  // The folder is deleted first: it must not hold the project or the compiled app, nor sit inside the app.
  if (isWithin(rootDir, outDir) || isWithin(appDir, outDir) || isWithin(outDir, appDir))
    throw new Error(`refusing to stage into ${outDir}`);

  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  cpSync(appDir, join(outDir, COMPILED_APP_DIR), {
    recursive: true,
    filter: (src) => !BUILD_ONLY.some((pattern) => pattern.test(src)),
  });
  copyFileSync(join(rootDir, 'host.json'), join(outDir, 'host.json'));
  // The app's own manifest and lock file, without the workspaces and what only they use (`npm ci` needs both to agree).
  const lock = readJson<PackageLock>(join(rootDir, 'package-lock.json'));
  writeFileSync(join(outDir, 'package.json'), `${JSON.stringify(productionManifest(manifest), null, 2)}\n`);
  writeFileSync(join(outDir, 'package-lock.json'), `${JSON.stringify(productionLock(lock, manifest), null, 2)}\n`);

  log(`Installing production dependencies into ${relative(rootDir, outDir)} …`);
  install(outDir);

  // A package the lock file marks as development-only must not ship (guards against an install that ignored --omit).
  const devOnly = installedPackages(join(outDir, 'node_modules')).filter(
    (name) => lock.packages[`node_modules/${name}`]?.dev === true,
  );
  if (devOnly.length > 0) throw new Error(`development-only packages were installed: ${devOnly.join(', ')}`);

  // An ignore file of its own: azd then zips this folder as it is. Without one, azd versions before 1.23.12
  // leave node_modules out of JavaScript packages by default.
  writeFileSync(
    join(outDir, '.funcignore'),
    '# Staged by infra/package/stageFunctionApp.ts: everything in this folder ships.\n',
  );

  const { files, bytes } = sizeOf(outDir);
  log(`Staged ${files} files, ${(bytes / 1_048_576).toFixed(1)} MB in ${relative(rootDir, outDir)}`);
  return { outDir, files, bytes };
}

function main(): void {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const { values } = parseArgs({ options: { out: { type: 'string', default: DEFAULT_STAGING_DIR } } });
  stageFunctionApp({ rootDir: root, outDir: values.out });
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main();
}
