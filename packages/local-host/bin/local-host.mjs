#!/usr/bin/env node
// `npm start`: runs the local host from bundles of its TypeScript, built with esbuild (packages/launcher): the host
// (src/main.ts and all it imports of the app, the CLI and the emulators), its worker threads (the emulators' and the
// Service Bus triggers'), and the npm packages they import. See packages/local-host/README.md, "Start-up".
//
// A bundle is rebuilt before it runs whenever it could be stale: any file it was built from, or the directory of
// one, changed, or so did the launcher, package.json or tsconfig.json (packages/launcher/src/buildCache.mjs).
// Builds go to fresh directories, so a concurrent start never runs a half-written bundle. The emulators' threads
// start from their bundle as soon as it is current, before the host's is loaded (or rebuilt), so they boot on the
// other core.
import { Worker } from 'node:worker_threads';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';
import { enableCompileCache, INPUTS, PARTS, prepareBundles, mapStackTraces } from '@ledger-convoy/launcher';

const root = fileURLToPath(new URL('../../..', import.meta.url));
enableCompileCache(root);
/** How the host finds the emulators' threads started here, and the workers' bundle (src/emulatorThread.ts reads it). */
const EMULATOR_WORKERS = Symbol.for('ledger-convoy.emulatorWorkers');

const { dirs, buildMs, prune } = await prepareBundles({
  root,
  parts: PARTS,
  only: ['host', 'workers'],
  inputs: INPUTS,
  onReady: (part, dir) => void (part === 'workers' && startEmulatorWorkers(dir)),
});
// For the host's start-up log (src/main.ts).
process.env.CONVOY_START_BUNDLES_AT_MS = String(Math.round(performance.now()));
if (buildMs !== undefined) process.env.CONVOY_START_BUILD_MS = String(buildMs);
// Stack traces name the TypeScript sources (our bundles' linked source maps; the vendor bundle has none).
mapStackTraces(dirname(dirs.host));
await import(pathToFileURL(join(dirs.host, 'main.js')).href);
// The host is up (its module ran to the end): earlier bundles go now rather than during the start.
prune?.();

/**
 * Starts one thread per emulator from the bundle in `dir`; the host hands each its options (emulatorThread.ts).
 * Unreferenced until then, so a start that never needs them (`--help`) is not held open by them. The host finds the
 * Service Bus triggers' entry beside the emulators' (`--no-emulators` too).
 */
function startEmulatorWorkers(dir) {
  const script = pathToFileURL(join(dir, 'emulatorWorker.js'));
  const waiting = new Map();
  globalThis[EMULATOR_WORKERS] = {
    script,
    take(service) {
      const worker = waiting.get(service);
      waiting.delete(service);
      worker?.ref();
      return worker;
    },
  };
  if (process.argv.includes('--no-emulators')) return;
  for (const service of ['servicebus', 'cosmos']) {
    const worker = new Worker(script, { workerData: { service } });
    worker.unref();
    // A thread that dies before it is taken is not handed out: the host starts another, which reports why.
    worker.on('error', () => undefined);
    worker.once('exit', () => waiting.delete(service));
    waiting.set(service, worker);
  }
}
