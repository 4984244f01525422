import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** `npm start`'s launcher builds bundles (launcher/); here against a small project of its own. */
interface Prepared {
  dirs: Record<string, string>;
  buildMs?: number;
  prune?: () => void;
}
type PrepareBundles = (options: {
  root: string;
  parts: Record<string, { entryPoints: Record<string, string>; assets?: string }>;
  only?: string[];
  inputs?: string[];
  onReady?: (part: string, dir: string) => void;
}) => Promise<Prepared>;

const repo = fileURLToPath(new URL('../../..', import.meta.url));
const { prepareBundles } = (await import(
  pathToFileURL(join(repo, 'packages/launcher/src/prepareBundles.mjs')).href
)) as { prepareBundles: PrepareBundles };

const PARTS = {
  host: { entryPoints: { main: 'app/main.ts' }, assets: 'app/static' },
  worker: { entryPoints: { worker: 'app/worker.ts' } },
};

let root: string;
const write = (path: string, text: string): void => {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
};
/** Moves a file's modification time, as an editor saving it would, without relying on the clock's resolution. */
const touch = (path: string, secondsLater: number): void => {
  const at = new Date(Date.now() + secondsLater * 1000);
  utimesSync(join(root, path), at, at);
};
const prepare = async () => {
  const ready: string[] = [];
  const prepared = await prepareBundles({
    root,
    parts: PARTS,
    inputs: ['package.json'],
    onReady: (part) => void ready.push(part),
  });
  return { ...prepared, ready };
};
const currentVendor = () =>
  (
    JSON.parse(readFileSync(join(root, '.start/current.json'), 'utf8')) as {
      vendor: { dir: string; specifiers: string[] };
    }
  ).vendor;
const run = async (dir: string, file: string): Promise<Record<string, unknown>> =>
  (await import(pathToFileURL(join(dir, file)).href)) as Record<string, unknown>;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'launcher-'));
  write('package.json', JSON.stringify({ name: 'fixture', type: 'module', private: true }));
  // An ES module package (stemmer), a CommonJS one with named exports (cookie), one whose export is a function (ms).
  for (const name of ['stemmer', 'cookie', 'ms'])
    cpSync(join(repo, 'node_modules', name), join(root, 'node_modules', name), { recursive: true });
  write('node_modules/.package-lock.json', '{}');
  // A package whose "module" condition names an ES build Node never loads: Node takes the CommonJS one.
  write(
    'node_modules/dual/package.json',
    JSON.stringify({ name: 'dual', exports: { '.': { module: './esm.mjs', default: './cjs.js' } } }),
  );
  write('node_modules/dual/esm.mjs', "export const build = 'es';\n");
  write('node_modules/dual/cjs.js', "exports.build = 'commonjs';\n");
  write('app/greeting.ts', "export const greeting = 'hello';\n");
  write(
    'app/main.ts',
    [
      "import { stemmer } from 'stemmer';",
      "import { parse } from 'cookie';",
      "import ms from 'ms';",
      "import { build } from 'dual';",
      "import { greeting } from './greeting.js';",
      "export const values = { greeting, stem: stemmer('running'), cookie: parse('a=1').a, ms: ms('1s'), dual: build };",
    ].join('\n'),
  );
  write('app/worker.ts', "import { stemmer } from 'stemmer';\nexport const stem = stemmer('jumping');\n");
  write('app/fail.ts', "export function fail(): never {\n  throw new Error('failed here');\n}\n");
  write('app/static/page.html', '<p>one</p>');
  write('node_modules/extra/package.json', JSON.stringify({ name: 'extra', main: 'index.js' }));
  write('node_modules/extra/index.js', "exports.extra = 'extra';\n");
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("npm start's bundles", () => {
  let first: Awaited<ReturnType<typeof prepare>>;

  it('are built on the first start: our code per part, the packages it imports in a vendor bundle, as Node would load them', async () => {
    first = await prepare();
    expect(first.buildMs).toBeGreaterThanOrEqual(0);
    expect(first.ready.sort()).toEqual(['host', 'worker']);
    expect((await run(first.dirs.host!, 'main.js')).values).toEqual({
      greeting: 'hello',
      stem: 'run',
      cookie: '1',
      ms: 1000,
      dual: 'commonjs',
    });
    expect((await run(first.dirs.worker!, 'worker.js')).stem).toBe('jump');
    expect(readFileSync(join(first.dirs.host!, 'static/page.html'), 'utf8')).toBe('<p>one</p>');
    // The packages are not in our parts' bundles: both import the one vendor bundle.
    const vendor = (
      JSON.parse(readFileSync(join(root, '.start/current.json'), 'utf8')) as {
        vendor: { dir: string; specifiers: string[] };
      }
    ).vendor;
    expect(vendor.specifiers).toEqual(['cookie', 'dual', 'ms', 'stemmer']);
    expect(readFileSync(join(first.dirs.host!, 'main.js'), 'utf8')).toContain(`../${vendor.dir}/stemmer.js`);
  });

  it('name the TypeScript sources in stack traces', async () => {
    write('app/main.ts', `${readFileSync(join(root, 'app/main.ts'), 'utf8')}\nexport { fail } from './fail.js';\n`);
    first = await prepare();
    // As npm start runs it: Node's own loader, the mapping installed first.
    const script = [
      `import { mapStackTraces } from ${JSON.stringify(pathToFileURL(join(repo, 'packages/launcher/src/stackTraces.mjs')).href)};`,
      `mapStackTraces(${JSON.stringify(join(root, '.start'))});`,
      `const { fail } = await import(${JSON.stringify(pathToFileURL(join(first.dirs.host!, 'main.js')).href)});`,
      'try { fail(); } catch (error) { process.stdout.write(error.stack); }',
    ].join('\n');
    const stack = execFileSync(process.execPath, ['--input-type=module', '--eval', script], { encoding: 'utf8' });
    expect(stack.split('\n').slice(0, 2)).toEqual([
      'Error: failed here',
      `    at fail (${join(root, 'app/fail.ts')}:2:9)`,
    ]);
  });

  it('are reused when nothing they were built from changed, each part reported ready at once', async () => {
    const again = await prepare();
    expect(again.buildMs).toBeUndefined();
    expect(again.dirs).toEqual(first.dirs);
    expect(again.ready.sort()).toEqual(['host', 'worker']);
  });

  it('rebuild only the part an edit is in, and run the edited code; the other part is ready before that build ends', async () => {
    write('app/greeting.ts', "export const greeting = 'hi';\n");
    touch('app/greeting.ts', 10);
    const edited = await prepare();
    expect(edited.buildMs).toBeGreaterThanOrEqual(0);
    expect(edited.ready).toEqual(['worker', 'host']);
    expect(edited.dirs.worker).toBe(first.dirs.worker);
    expect(edited.dirs.host).not.toBe(first.dirs.host);
    expect(((await run(edited.dirs.host!, 'main.js')).values as { greeting: string }).greeting).toBe('hi');
  });

  it('rebuild a part when a file appears beside one it imports (an import could now resolve to it)', async () => {
    const before = await prepare();
    write('app/greeting.js', "export const greeting = 'from the js file';\n");
    const after = await prepare();
    expect(after.dirs.host).not.toBe(before.dirs.host);
    rmSync(join(root, 'app/greeting.js'));
  });

  it('rebuild when an asset served beside the host changes', async () => {
    const before = await prepare();
    write('app/static/page.html', '<p>two</p>');
    touch('app/static/page.html', 20);
    const after = await prepare();
    expect(readFileSync(join(after.dirs.host!, 'static/page.html'), 'utf8')).toBe('<p>two</p>');
    expect(after.dirs.host).not.toBe(before.dirs.host);
  });

  it('build a new vendor bundle, and every part against it, when an edit imports a package none imported before', async () => {
    const before = await prepare();
    write(
      'app/worker.ts',
      "import { stemmer } from 'stemmer';\nimport ms from 'ms';\nexport const stem = stemmer('jumping');\nexport const second = ms('2s');\n",
    );
    touch('app/worker.ts', 30);
    // A package only the worker used before is now needed by it too; a wholly new one goes the same way.
    write(
      'app/main.ts',
      `${readFileSync(join(root, 'app/main.ts'), 'utf8')}\nimport { serialize } from 'cookie';\nexport const cookie = serialize('b', '2');\n`,
    );
    touch('app/main.ts', 30);
    const after = await prepare();
    expect(after.dirs.worker).not.toBe(before.dirs.worker);
    expect((await run(after.dirs.worker!, 'worker.js')).second).toBe(2000);
    expect((await run(after.dirs.host!, 'main.js')).cookie).toBe('b=2');
  });

  it('rebuild the vendor bundle when a package changes, and run the changed package', async () => {
    const before = await prepare();
    const file = join(root, 'node_modules/ms/index.js');
    writeFileSync(file, readFileSync(file, 'utf8').replace('var s = 1000;', 'var s = 1001;'));
    touch('node_modules/ms/index.js', 40);
    const after = await prepare();
    expect(after.dirs.host).not.toBe(before.dirs.host);
    expect(((await run(after.dirs.host!, 'main.js')).values as { ms: number }).ms).toBe(1001);
  });

  it('rebuild the vendor bundle after an npm install (which rewrites node_modules/.package-lock.json)', async () => {
    const vendorDir = () =>
      (JSON.parse(readFileSync(join(root, '.start/current.json'), 'utf8')) as { vendor: { dir: string } }).vendor.dir;
    await prepare();
    const before = vendorDir();
    write('node_modules/.package-lock.json', '{"lockfileVersion":3}');
    touch('node_modules/.package-lock.json', 50);
    await prepare();
    expect(vendorDir()).not.toBe(before);
  });

  it('rebuild everything when a file that shapes every build changes (package.json here)', async () => {
    const before = await prepare();
    touch('package.json', 60);
    const after = await prepare();
    expect(after.dirs.host).not.toBe(before.dirs.host);
    expect(after.dirs.worker).not.toBe(before.dirs.worker);
  });

  it('make only the parts asked for current; a vendor bundle built meanwhile has every part built against it', async () => {
    const before = await prepare();
    write(
      'app/worker.ts',
      `${readFileSync(join(root, 'app/worker.ts'), 'utf8')}\nimport { extra } from 'extra';\nexport const fromExtra = extra;\n`,
    );
    touch('app/worker.ts', 70);
    touch('app/main.ts', 70);
    const ready: string[] = [];
    const worker = await prepareBundles({
      root,
      parts: PARTS,
      only: ['worker'],
      inputs: ['package.json'],
      onReady: (part) => void ready.push(part),
    });
    expect(Object.keys(worker.dirs)).toEqual(['worker']);
    expect(ready).toEqual(['worker']);
    expect((await run(worker.dirs.worker!, 'worker.js')).fromExtra).toBe('extra');
    // A package new to the worker: a new vendor bundle, with the host's packages too.
    const vendor = currentVendor();
    expect(vendor.specifiers).toEqual(['cookie', 'dual', 'extra', 'ms', 'stemmer']);
    // The host was built against it then, its edit included: asked for next, it builds nothing.
    const host = await prepareBundles({ root, parts: PARTS, only: ['host'], inputs: ['package.json'] });
    expect(host.buildMs).toBeUndefined();
    expect(host.dirs.host).not.toBe(before.dirs.host);
    expect(currentVendor().dir).toBe(vendor.dir);
    expect(((await run(host.dirs.host!, 'main.js')).values as { greeting: string }).greeting).toBe('hi');
  });

  it('make the parts asked for current when another part, rebuilt with a new vendor bundle, fails to build', async () => {
    const main = readFileSync(join(root, 'app/main.ts'), 'utf8');
    write('app/main.ts', `${main}\nexport const broken = ;\n`);
    touch('app/main.ts', 80);
    // An install: a new vendor bundle.
    write('node_modules/.package-lock.json', '{"lockfileVersion":3,"packages":{}}');
    touch('node_modules/.package-lock.json', 80);
    const worker = await prepareBundles({ root, parts: PARTS, only: ['worker'], inputs: ['package.json'] });
    expect((await run(worker.dirs.worker!, 'worker.js')).stem).toBe('jump');
    // The host's own run reports its error.
    await expect(prepareBundles({ root, parts: PARTS, only: ['host'], inputs: ['package.json'] })).rejects.toThrow(
      /Unexpected ";"/,
    );
    write('app/main.ts', main);
    touch('app/main.ts', 90);
    const host = await prepareBundles({ root, parts: PARTS, only: ['host'], inputs: ['package.json'] });
    expect(((await run(host.dirs.host!, 'main.js')).values as { greeting: string }).greeting).toBe('hi');
  });

  it('keep the bundles a running start may still load from, and remove older ones', async () => {
    for (let i = 0; i < 5; i++) {
      touch('app/greeting.ts', 100 + i);
      (await prepare()).prune?.();
    }
    const hosts = readdirSync(join(root, '.start')).filter((d) => d.startsWith('host-'));
    // The current one and the three before it.
    expect(hosts).toHaveLength(4);
  });
});
