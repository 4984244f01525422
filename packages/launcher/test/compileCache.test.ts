import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

/** The launcher's use of Node's compile cache (src/compileCache.mjs). */
const repo = fileURLToPath(new URL('../../..', import.meta.url));
const launcherModule = pathToFileURL(join(repo, 'packages/launcher/src/compileCache.mjs')).href;
const { trimCompileCache } = (await import(launcherModule)) as {
  trimCompileCache: (root: string, maxBytes?: number) => void;
};

let root: string | undefined;
afterEach(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe('the compile cache', () => {
  it('is on in .start/compile-cache, for this process and the threads it starts, where Node has one (22.1 and later)', () => {
    root = mkdtempSync(join(tmpdir(), 'compile-cache-'));
    const dir = join(root, '.start', 'compile-cache');
    const script = `
      import module from 'node:module';
      import { once } from 'node:events';
      import { Worker } from 'node:worker_threads';
      import { enableCompileCache } from ${JSON.stringify(launcherModule)};
      enableCompileCache(${JSON.stringify(root)});
      const inDir = (cacheDir) => cacheDir?.startsWith(${JSON.stringify(dir)});
      const worker = new Worker("import { parentPort } from 'node:worker_threads'; import module from 'node:module'; parentPort.postMessage(module.getCompileCacheDir?.() ?? null);", { eval: true });
      const [inWorker] = await once(worker, 'message');
      process.stdout.write(JSON.stringify({ main: inDir(module.getCompileCacheDir?.()), worker: inDir(inWorker ?? undefined), env: process.env.NODE_COMPILE_CACHE }));`;
    const env = { ...process.env };
    delete env.NODE_COMPILE_CACHE;
    const seen = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '--eval', script], { encoding: 'utf8', env }),
    ) as Record<string, unknown>;
    // Node 20, where this runs by default, has no compile cache: nothing is set.
    expect(seen).toEqual(
      typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function'
        ? { main: true, worker: true, env: dir }
        : {},
    );
  });

  it('is emptied once it outgrows its limit, and kept below it', () => {
    root = mkdtempSync(join(tmpdir(), 'compile-cache-'));
    const dir = join(root, '.start', 'compile-cache', 'v22-x64');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'a'), Buffer.alloc(600));
    writeFileSync(join(dir, 'b'), Buffer.alloc(600));
    trimCompileCache(root, 2_000);
    expect(existsSync(join(dir, 'b'))).toBe(true);
    trimCompileCache(root, 1_000);
    expect(existsSync(join(root, '.start', 'compile-cache'))).toBe(false);
    // Without a cache there is nothing to do.
    expect(() => trimCompileCache(root!, 1_000)).not.toThrow();
  });
});
