// Node 22.1 and later keep V8's compiled code of the modules they load on disk between runs (node:module
// `enableCompileCache`): a start then mostly skips compiling the bundles. Node 20 has no such cache; there this does
// nothing. An entry is used only for the very source it was made from.
import { readdirSync, rmSync, statSync } from 'node:fs';
import module from 'node:module';
import { join } from 'node:path';
import process from 'node:process';

/** Above this size the cache is emptied: each rebuilt bundle adds entries, and Node never removes one. */
const MAX_BYTES = 64 * 1024 * 1024;

const cacheDir = (root) => join(root, '.start', 'compile-cache');

/** Turns the cache on for this process, and for the worker threads and Node child processes it starts later. */
export function enableCompileCache(root) {
  if (typeof module.enableCompileCache !== 'function') return;
  module.enableCompileCache(cacheDir(root));
  // Threads and child processes read it from their environment when they start.
  process.env.NODE_COMPILE_CACHE ??= cacheDir(root);
}

/** Empties the cache once it holds more than `maxBytes` (the next runs fill it again). */
export function trimCompileCache(root, maxBytes = MAX_BYTES) {
  const dir = cacheDir(root);
  let bytes = 0;
  try {
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) bytes += statSync(join(entry.parentPath ?? entry.path, entry.name)).size;
    }
  } catch {
    return;
  }
  if (bytes > maxBytes) rmSync(dir, { recursive: true, force: true });
}
