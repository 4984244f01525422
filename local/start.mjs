// `npm start`: runs the local host from one bundle of its TypeScript (local/main.ts, the emulators' worker, and all
// they import from src/, cli/ and emulators/), built with esbuild; packages stay in node_modules. Loading one file
// instead of ~250 through a loader hook is most of the start-up saved (see README, "Start-up").
//
// The bundle is rebuilt whenever it could be stale: every file esbuild read for it (from its metafile), and the
// directory of each (a file added beside them can change what an import resolves to), must still have the size and
// modification time they had when it was built; so must this launcher, package.json and tsconfig.json. A build goes
// to a fresh directory and becomes current by an atomic rename of `current.json`, so concurrent starts never run a
// half-written bundle.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, cpSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cacheDir = join(root, '.start');
const currentFile = join(cacheDir, 'current.json');
const ENTRY_POINTS = { main: 'local/main.ts', emulatorWorker: 'local/emulatorWorker.ts' };
/** Files that shape the build without being imported. */
const BUILD_INPUTS = ['local/start.mjs', 'package.json', 'tsconfig.json'];
/** Earlier builds kept besides the current one. */
const KEPT_BUILDS = 3;
/** Served by the console from beside its module. */
const STATIC_DIR = 'cli/console/static';

/** Size and modification time, or null when the path is gone. */
function fingerprint(path) {
  try {
    const s = statSync(join(root, path));
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return null;
  }
}

/** The current build's directory when nothing it was built from changed; else undefined. */
function freshBuild() {
  let current;
  try {
    current = JSON.parse(readFileSync(currentFile, 'utf8'));
  } catch {
    return undefined;
  }
  if (!existsSync(join(cacheDir, current.dir, 'main.js'))) return undefined;
  for (const [path, print] of Object.entries(current.inputs)) if (fingerprint(path) !== print) return undefined;
  return current.dir;
}

async function rebuild() {
  const started = performance.now();
  const { build } = await import('esbuild');
  const dir = `build-${Date.now()}-${process.pid}`;
  const outdir = join(cacheDir, dir);
  const result = await build({
    absWorkingDir: root,
    entryPoints: ENTRY_POINTS,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'error',
  });
  cpSync(join(root, STATIC_DIR), join(outdir, 'static'), { recursive: true });
  const files = new Set([...Object.keys(result.metafile.inputs), ...BUILD_INPUTS, ...readdirSync(join(root, STATIC_DIR)).map((f) => `${STATIC_DIR}/${f}`)]);
  const inputs = {};
  for (const file of files) {
    inputs[file] = fingerprint(file);
    const parent = relative(root, dirname(join(root, file))) || '.';
    inputs[parent] ??= fingerprint(parent);
  }
  const temporary = `${currentFile}.${process.pid}`;
  writeFileSync(temporary, JSON.stringify({ dir, inputs }));
  renameSync(temporary, currentFile);
  // Earlier builds go, but not the last few: a start still running one loads some of its chunks later (the console,
  // the shutdown), so its files must outlive a rebuild made meanwhile by another start.
  const builds = readdirSync(cacheDir).filter((d) => d.startsWith('build-') && d !== dir).sort((a, b) => Number(b.split('-')[1]) - Number(a.split('-')[1]));
  for (const old of builds.slice(KEPT_BUILDS)) rmSync(join(cacheDir, old), { recursive: true, force: true });
  process.env.CONVOY_START_BUILD_MS = String(Math.round(performance.now() - started));
  return dir;
}

mkdirSync(cacheDir, { recursive: true });
const dir = freshBuild() ?? (await rebuild());
// Stack traces name the TypeScript sources (the bundle's linked source map).
process.setSourceMapsEnabled(true);
await import(pathToFileURL(join(cacheDir, dir, 'main.js')).href);
