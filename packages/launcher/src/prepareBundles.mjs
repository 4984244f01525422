// Makes bundles current: each part of our code (parts.mjs names them) and the vendor bundle of the packages they
// import, each rebuilt only when something it was built from changed (buildCache.mjs).
import { cpSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { URL, fileURLToPath } from 'node:url';
import { buildCache } from './buildCache.mjs';
import { buildApp, buildVendor } from './bundles.mjs';
import { trimCompileCache } from './compileCache.mjs';

/** This launcher's own modules: a change to how bundles are made makes every bundle stale. */
const LAUNCHER_FILES = ['buildCache.mjs', 'bundles.mjs', 'compileCache.mjs', 'parts.mjs', 'prepareBundles.mjs'].map(
  (file) => fileURLToPath(new URL(file, import.meta.url)),
);

/**
 * Makes the bundles of the parts named in `only` current and resolves to the directory of each (by part name); when
 * something was rebuilt, with `buildMs` and `prune()`, which removes bundles no run needs any more and empties an
 * overgrown compile cache (compileCache.mjs; call it once started).
 * - `parts`: every part, by name: the entry points of each (`{ main: 'packages/local-host/src/main.ts' }`) and an
 *   optional directory of `assets` (relative to `root`) copied beside them as `static/`;
 * - `only`: the parts to make current (all by default). The vendor bundle is shared: when it is rebuilt, every part
 *   is rebuilt against it, the others too (a failure of theirs left to their own next run), so it holds the packages
 *   of all and the commands that run different parts do not rebuild it in turn;
 * - `inputs`: files that shape every build without being imported (package.json, tsconfig.json, the launcher);
 * - `onReady(part, dir)` is called once per part as soon as its bundle is current: at once when it was, so it can
 *   start while the others rebuild.
 */
export async function prepareBundles({
  root,
  parts,
  only = Object.keys(parts),
  inputs = [],
  onReady = () => undefined,
}) {
  const cache = buildCache(root);
  const current = cache.read();
  const shared = [...inputs, ...LAUNCHER_FILES.map((file) => relative(root, file))];
  const names = only;
  const vendorFresh = cache.isFresh(current.vendor);
  const fresh = names.filter(
    (name) => vendorFresh && current[name]?.vendor === current.vendor.dir && cache.isFresh(current[name]),
  );
  for (const name of fresh) onReady(name, cache.path(current[name].dir));
  if (fresh.length === names.length)
    return { dirs: Object.fromEntries(names.map((name) => [name, cache.path(current[name].dir)])) };

  const started = performance.now();
  // Required rather than imported: an import of this CommonJS package first has Node scan it for export names.
  const esbuild = createRequire(import.meta.url)('esbuild');
  const buildPart = async (name, vendorDir) => {
    const dir = cache.newDir(name);
    const { files, specifiers } = await buildApp(esbuild, {
      root,
      entryPoints: parts[name].entryPoints,
      outdir: cache.path(dir),
      vendorDir,
    });
    const assets = parts[name].assets;
    if (assets !== undefined) cpSync(join(root, assets), join(cache.path(dir), 'static'), { recursive: true });
    const assetFiles = assets === undefined ? [] : readdirSync(join(root, assets)).map((file) => `${assets}/${file}`);
    return [name, cache.record(dir, [...files, ...shared, ...assetFiles], { vendor: vendorDir, specifiers })];
  };
  const buildParts = async (which, vendorDir) =>
    Object.fromEntries(await Promise.all(which.map((name) => buildPart(name, vendorDir))));
  let vendorDir = vendorFresh ? current.vendor.dir : cache.newDir('vendor');
  let records = await buildParts(
    names.filter((name) => !fresh.includes(name)),
    vendorDir,
  );
  const needed = (built) => [...new Set(Object.values(built).flatMap((record) => record.specifiers))].sort();
  if (!vendorFresh || needed(records).some((specifier) => !current.vendor.specifiers.includes(specifier))) {
    // A package no bundle imported before, or a new install: a new vendor bundle, with every part built against it
    // (unless just built against its directory). (A part started already keeps running its own, still current,
    // bundle: each refers to its vendor bundle by directory.)
    if (vendorFresh) vendorDir = cache.newDir('vendor');
    const others = Object.keys(parts).filter((name) => !names.includes(name));
    const [asked, besides] = await Promise.all([
      vendorFresh ? buildParts(names, vendorDir) : records,
      Promise.allSettled(others.map((name) => buildPart(name, vendorDir))),
    ]);
    records = {
      ...asked,
      ...Object.fromEntries(besides.flatMap((built) => (built.status === 'fulfilled' ? [built.value] : []))),
    };
    const specifiers = needed(records);
    const files = await buildVendor(esbuild, { root, outdir: cache.path(vendorDir), specifiers });
    // npm rewrites node_modules/.package-lock.json on every install, whatever it changed.
    records.vendor = cache.record(
      vendorDir,
      [...files, ...shared, 'package-lock.json', 'node_modules/.package-lock.json'],
      { specifiers },
    );
  }
  cache.update(records);
  const dirs = Object.fromEntries(names.map((name) => [name, cache.path((records[name] ?? current[name]).dir)]));
  for (const name of names) if (!fresh.includes(name)) onReady(name, dirs[name]);
  const prune = () => {
    cache.prune();
    trimCompileCache(root);
  };
  return { dirs, buildMs: Math.round(performance.now() - started), prune };
}
