import { fileURLToPath } from 'node:url';

/** Absolute path of a file in the repository (this file lives in `local/`). */
export function repoPath(relative: string): string {
  return fileURLToPath(new URL(`../${relative}`, import.meta.url));
}
