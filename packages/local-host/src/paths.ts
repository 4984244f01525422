import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/**
 * Absolute path of a file of the Function App this host serves: the nearest directory above this module holding a
 * `host.json` (the app's root, as for the Functions host), so the same code works from `packages/local-host/src/`
 * (tsx, vitest) and from `npm start`'s bundle (`.start/host-…/`).
 */
export function repoPath(relative: string): string {
  root ??= findRoot(dirname(fileURLToPath(import.meta.url)));
  return join(root, relative);
}

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'host.json'))) return dir;
    if (dirname(dir) === dir)
      throw new Error(`no host.json above ${from}: the local host runs inside a Function App's folder`);
  }
}
