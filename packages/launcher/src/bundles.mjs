// The esbuild builds behind `npm start` and `npx convoy`. Our TypeScript is bundled per part (parts.mjs), and the
// npm packages it imports go to one vendor bundle of their own: loading a few large files instead of ~2,000
// small ones through Node's resolver is most of the start-up saved, and an edit rebuilds only our part (a third to
// two thirds of a second here) while the packages' bundle is rebuilt only when they change.
import { realpathSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import process from 'node:process';

/**
 * Packages left to load from node_modules: Application Insights patches modules as Node loads them, and its Azure
 * SDK bridge sets the instrumenter of the installed `@azure/core-tracing`, so the SDKs must use that copy;
 * `selfsigned` runs only when a certificate is made.
 */
const INSTALLED = new Set(['@azure/core-tracing', 'applicationinsights', 'selfsigned']);

/**
 * Packages loaded from node_modules too, but through `require` by their vendor entry: `@azure/functions` must share
 * `@azure/functions-extensions-base` with the Service Bus extension the app requires (docs/platform.md, "Two copies
 * of @azure/functions-extensions-base"), and an `import` of this CommonJS package would first have Node scan its
 * source for export names (about as long as loading it).
 */
const REQUIRED = new Set(['@azure/functions']);

/** Gives CommonJS packages the `require` they call for Node's built-in modules. */
const REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** What every build here makes: ES modules for Node, bundled and split into shared chunks. */
const ESM_FOR_NODE = { bundle: true, splitting: true, format: 'esm', platform: 'node', target: 'node20' };

const packageName = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const isBare = (specifier) => !/^[./]/.test(specifier) && !isBuiltin(specifier);

/**
 * The repository's own packages: the workspace packages (packages/*) and the app (`ledger-convoy`, linked into
 * node_modules by the packages that use it). Our code, bundled into the part that imports them like the rest of it,
 * never into the vendor bundle (an edit of theirs rebuilds only that part, and files they read beside their code,
 * such as the console's page, are found beside the part's bundle).
 */
const isOurPackage = (specifier) =>
  specifier.startsWith('@ledger-convoy/') || packageName(specifier) === 'ledger-convoy';

/** The file of the vendor bundle that exports `specifier` (`@azure/cosmos` → `azure+cosmos.js`). */
const vendorFile = (specifier) => `${specifier.replace(/^@/, '').replaceAll('/', '+')}.js`;

/**
 * Builds a part of our code (its `entryPoints`) into `outdir`, its package imports pointing into the vendor bundle
 * `vendorDir` (a sibling directory). Resolves to the files it read (relative to `root`) and the package specifiers
 * it imports.
 */
export async function buildApp(esbuild, { root, entryPoints, outdir, vendorDir }) {
  const specifiers = new Set();
  const result = await esbuild.build({
    ...ESM_FOR_NODE,
    absWorkingDir: root,
    entryPoints,
    outdir,
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'error',
    plugins: [
      {
        name: 'vendor-bundle',
        setup(build) {
          build.onResolve({ filter: /^[^./]/ }, ({ path }) => {
            if (!isBare(path) || isOurPackage(path)) return undefined;
            if (INSTALLED.has(packageName(path))) return { path, external: true };
            specifiers.add(path);
            return { path: `../${vendorDir}/${vendorFile(path)}`, external: true };
          });
        },
      },
    ],
  });
  return { files: Object.keys(result.metafile.inputs), specifiers: [...specifiers].sort() };
}

/**
 * Builds the vendor bundle: one file per specifier exporting what Node would (`vendorFile`), plus shared chunks.
 * Resolves to the files it read, relative to `root`.
 */
export async function buildVendor(esbuild, { root, outdir, specifiers }) {
  const shapes = await moduleShapes(root, specifiers);
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: specifiers.map((specifier) => ({
      in: `vendor:${specifier}`,
      out: vendorFile(specifier).slice(0, -'.js'.length),
    })),
    outdir,
    ...ESM_FOR_NODE,
    external: [...INSTALLED, ...REQUIRED].flatMap((name) => [name, `${name}/*`]),
    // Node's conditions only: esbuild's default `module` condition picks files Node would not load.
    conditions: [],
    banner: { js: REQUIRE_BANNER },
    metafile: true,
    logLevel: 'error',
    plugins: [
      {
        name: 'vendor-entries',
        setup(build) {
          // An .mjs path: esbuild then gives a CommonJS import Node's interop (`default` is always `module.exports`).
          build.onResolve({ filter: /^vendor:/ }, ({ path }) => ({
            path: `${path.slice('vendor:'.length)}.mjs`,
            namespace: 'vendor-entry',
          }));
          build.onLoad({ filter: /.*/, namespace: 'vendor-entry' }, async ({ path }) => {
            const specifier = path.slice(0, -'.mjs'.length);
            const shape = shapes[specifier];
            // The bundle must hold the very file Node would load for the package.
            if (!REQUIRED.has(packageName(specifier))) {
              const resolved = await build.resolve(specifier, { kind: 'import-statement', resolveDir: root });
              if (resolved.errors.length > 0) return { errors: resolved.errors };
              if (realpathSync(resolved.path) !== realpathSync(shape.file))
                return { errors: [{ text: `${specifier}: esbuild resolves ${resolved.path}, Node ${shape.file}` }] };
            }
            return { contents: entrySource(specifier, shape), resolveDir: root, loader: 'js' };
          });
        },
      },
    ],
  });
  return Object.keys(result.metafile.inputs).filter((file) => !file.startsWith('vendor-entry:'));
}

/**
 * An entry of the vendor bundle. An ES module is re-exported as it is (its default export too: undefined when it has
 * none, which our code, checked by TypeScript against the package, never imports); a CommonJS one by the names
 * Node's own loader gives an `import` of it (its default export is `module.exports`), which esbuild cannot know —
 * bundled, or for {@link REQUIRED} packages required from node_modules.
 */
function entrySource(specifier, shape) {
  const quoted = JSON.stringify(specifier);
  if (shape.format === 'module')
    return `import * as namespace from ${quoted};\nexport default namespace.default;\nexport * from ${quoted};\n`;
  const head = REQUIRED.has(packageName(specifier))
    ? `import { createRequire } from 'node:module';\nconst exported = createRequire(import.meta.url)(${quoted});\n`
    : `import exported from ${quoted};\n`;
  const named = shape.names.filter((name) => name !== 'default');
  const bindings = named.map((name, i) => `const export${i} = exported[${JSON.stringify(name)}];\n`).join('');
  return `${head}export default exported;\n${bindings}export { ${named.map((name, i) => `export${i} as ${JSON.stringify(name)}`).join(', ')} };\n`;
}

/**
 * The file Node resolves each specifier to from `root`, its module format and, for CommonJS ones, the export names
 * Node gives an `import` of them, read by a child process that imports those (the packages stay out of this process).
 */
async function moduleShapes(root, specifiers) {
  // Loaded here, not with the launcher: a start whose bundles are current never needs it.
  const { execFileSync } = await import('node:child_process');
  const script = `
    import { readFileSync } from 'node:fs';
    import { dirname, join } from 'node:path';
    import { fileURLToPath } from 'node:url';
    // Node's rule: .mjs and .cjs say it; otherwise the "type" of the nearest package.json.
    const formatOf = (file) => {
      if (file.endsWith('.mjs')) return 'module';
      if (file.endsWith('.cjs')) return 'commonjs';
      for (let dir = dirname(file); dirname(dir) !== dir; dir = dirname(dir)) {
        let manifest;
        try { manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')); } catch { continue; }
        return manifest.type === 'module' ? 'module' : 'commonjs';
      }
      return 'commonjs';
    };
    const shapes = {};
    for (const specifier of JSON.parse(process.argv[1])) {
      const file = fileURLToPath(import.meta.resolve(specifier));
      const format = formatOf(file);
      shapes[specifier] = { file, format, names: format === 'commonjs' ? Object.keys(await import(specifier)) : [] };
    }
    process.stdout.write(JSON.stringify(shapes));`;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '--eval', script, JSON.stringify(specifiers)], {
      cwd: root,
      encoding: 'utf8',
    }),
  );
}
