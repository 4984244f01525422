import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/**
 * Absolute path of a file in the repository: the nearest directory above this module holding a `package.json`, so
 * the same code works from `local/` (tsx, vitest) and from `npm start`'s bundle (`.start/build-…/`).
 */
export function repoPath(relative: string): string {
  root ??= findRoot(dirname(fileURLToPath(import.meta.url)));
  return join(root, relative);
}

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}
