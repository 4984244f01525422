/**
 * The shape of the repository, checked by `npm run check:shape` (part of `npm test`). docs/architecture.md says
 * what each part is for; these rules keep the arrows between them pointing one way:
 *
 *   bench/ → local/ → cli/ → src/      (local/ and bench/ may also use emulators/)
 *
 * launcher/ (which bundles our TypeScript for `npm start` and `npx convoy`) reads the others' sources as files and
 * imports none of them.
 *
 * The core (src/core) is pure: no adapter, function, SDK or host. Nothing outside test/ imports test/.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle between files: split the shared part out, or invert the dependency.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-is-pure',
      severity: 'error',
      comment: 'The core decides; it imports no adapter, function, Azure SDK or Functions host.',
      from: { path: '^src/core/' },
      to: {
        path: ['^src/(adapters|functions)/', '^(local|cli|bench|emulators|test)/'],
      },
    },
    {
      name: 'core-imports-no-sdk',
      severity: 'error',
      comment: 'The core stays free of the Azure SDKs and the Functions programming model.',
      from: { path: '^src/core/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'], path: '^node_modules/(@azure|applicationinsights|@opentelemetry/sdk)' },
    },
    {
      name: 'src-stands-alone',
      severity: 'error',
      comment: 'The deployed app imports nothing of the local host, the CLI, the benches, the emulators or the tests.',
      from: { path: '^src/' },
      to: { path: '^(local|cli|bench|emulators|test|launcher)/' },
    },
    {
      name: 'emulators-stand-alone',
      severity: 'error',
      comment: 'The emulators are their own products: nothing of the app, the host, the CLI, the benches or the tests.',
      from: { path: '^emulators/' },
      to: { path: '^(src|local|cli|bench|test)/' },
    },
    {
      name: 'cli-uses-src-only',
      severity: 'error',
      comment: 'The CLI (and its console) sits on the app: it may use src/, never the local host, the benches or the emulators.',
      from: { path: '^cli/' },
      to: { path: '^(local|bench|emulators|test)/' },
    },
    {
      name: 'local-below-bench',
      severity: 'error',
      comment: 'The in-process host may use the CLI, the app and the emulators, never the benches or the tests.',
      from: { path: '^local/' },
      to: { path: '^(bench|test)/' },
    },
    {
      name: 'launcher-stands-alone',
      severity: 'error',
      comment: 'The launcher builds and runs our code from bundles: it imports none of it.',
      from: { path: '^launcher/' },
      to: { path: '^(src|local|cli|bench|emulators|test)/' },
    },
    {
      name: 'nothing-imports-tests',
      severity: 'error',
      comment: 'Test code is for tests: move what another part needs out of test/.',
      from: { pathNot: '^test/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^node_modules', '^dist/', '^coverage/', '^\\.tools/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
