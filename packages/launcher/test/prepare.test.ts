import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** The install's `prepare` step (package.json), which `npm ci` and `npm install` run in this repository. */
describe("the install's prepare step", () => {
  it("is what package.json runs after an install: the launcher's command, by its file", () => {
    // By its file, not `convoy-bundles`: npm also runs the root's prepare as that of the link the packages have to
    // it (`ledger-convoy`), before it links the workspaces' commands.
    const manifest = (file: string) =>
      JSON.parse(readFileSync(join(root, file), 'utf8')) as {
        scripts?: Record<string, string>;
        bin?: Record<string, string>;
      };
    const command = manifest('packages/launcher/package.json').bin?.['convoy-bundles'];
    expect(manifest('package.json').scripts?.prepare).toBe(`node packages/launcher/${command}`);
  });

  it(
    'leaves every part of the launcher current, so neither npm start nor npx convoy builds after an install',
    { timeout: 120_000 },
    async () => {
      execFileSync(process.execPath, ['packages/launcher/src/prepare.mjs'], { cwd: root, encoding: 'utf8' });
      const { PARTS, INPUTS } = (await import(pathToFileURL(join(root, 'packages/launcher/src/parts.mjs')).href)) as {
        PARTS: Record<string, unknown>;
        INPUTS: string[];
      };
      const { prepareBundles } = (await import(
        pathToFileURL(join(root, 'packages/launcher/src/prepareBundles.mjs')).href
      )) as {
        prepareBundles: (options: {
          root: string;
          parts: unknown;
          inputs: string[];
        }) => Promise<{ dirs: Record<string, string>; buildMs?: number }>;
      };
      const after = await prepareBundles({ root, parts: PARTS, inputs: INPUTS });
      expect(after.buildMs).toBeUndefined();
      expect(Object.keys(after.dirs).sort()).toEqual(Object.keys(PARTS).sort());
      // The workspace packages and the app they import by name (`ledger-convoy`) are our code: bundled into the part
      // that imports them, beside the files they read (the console's page), never into the packages' vendor bundle.
      const host = after.dirs.host!;
      const hostCode = readdirSync(host)
        .filter((file) => file.endsWith('.js'))
        .map((file) => readFileSync(join(host, file), 'utf8'));
      expect(hostCode.some((code) => code.includes('// packages/cli/src/console/consoleServer.ts'))).toBe(true);
      expect(hostCode.some((code) => code.includes('// src/functions/app.ts'))).toBe(true);
      expect(readdirSync(join(host, 'static'))).toContain('console.js');
      const vendorDir = /\.\.\/(vendor-[^/'"]+)\//.exec(hostCode.join('\n'))?.[1];
      expect(vendorDir).toBeDefined();
      expect(readdirSync(join(host, '..', vendorDir!)).filter((file) => file.startsWith('ledger-convoy+'))).toEqual([]);
    },
  );
});
