/**
 * The shape of the repository, checked by `npm run check:shape` (part of `npm test`). docs/architecture.md says
 * what each part is for. The root is the Function App (src/) with its tests, benches and scripts; each tool is a
 * workspace package under packages/:
 *
 *   local-host → cli → the app's entry points (`ledger-convoy/core`, `ledger-convoy/adapters/…`, `…/functions/…`)
 *   local-host → servicebus-emulator, cosmos-emulator → dev-certificate;   launcher imports none of ours
 *
 * A package is reached from outside only through its entry points (its package name, resolved to the `exports` of
 * its package.json) or its command; the app too (`ledger-convoy`, the root's `exports`), which the packages that
 * use it name as a dependency (`file:../..`). The app imports no package. The core (src/core) is pure: no adapter,
 * function, SDK or host. Nothing outside the tests imports test code.
 */
/** Each package's entry points: what another package, the app's tests or the benches may import. */
const ENTRY_POINTS = [
  '^packages/[^/]+/src/index\\.(ts|mjs)$',
  '^packages/cli/src/console/index\\.ts$',
  '^packages/cli/src/emulatorKeys\\.ts$',
  '^packages/dev-certificate/src/certificate\\.ts$',
  '^packages/[^/]+/bin/',
];
/**
 * The app's modules a tool may use: the root package's `exports` (the core's entry module, the adapters the tools
 * use, one port on one SDK each so a tool loads only the SDKs it needs, and the app as a host loads it).
 */
const APP_ENTRY_POINTS = Object.values(require('./package.json').exports).map(
  (file) => `^${file.slice('./'.length).replaceAll('.', '\\.')}$`,
);

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
      to: { path: ['^src/(adapters|functions)/', '^(packages|bench|test)/'] },
    },
    {
      name: 'core-imports-no-sdk',
      severity: 'error',
      comment: 'The core stays free of the Azure SDKs and the Functions programming model.',
      from: { path: '^src/core/' },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
        path: '^node_modules/(@azure|applicationinsights|@opentelemetry/sdk)',
      },
    },
    {
      name: 'app-imports-no-tool',
      severity: 'error',
      comment: 'The deployed app imports no tool package, bench, script or test: none of them ships.',
      from: { path: '^src/' },
      to: { path: '^(packages|bench|scripts|test)/' },
    },
    {
      name: 'packages-through-entry-points',
      severity: 'error',
      comment:
        'Another package is reached through its entry point (its package name) or its command, never by a path into it.',
      from: { path: '^(packages/[^/]+/)' },
      to: { path: '^packages/', pathNot: ['^$1', ...ENTRY_POINTS] },
    },
    {
      name: 'packages-by-name',
      severity: 'error',
      comment:
        'A package imports another package, or the app, by its name (`@ledger-convoy/…`, `ledger-convoy/…`), never by a relative path out of itself.',
      from: { path: '^(packages/[^/]+/)' },
      to: { dependencyTypes: ['local'], path: '^(src|packages)/', pathNot: '^$1' },
    },
    {
      name: 'root-reaches-packages-through-entry-points',
      severity: 'error',
      comment:
        "The app's tests, benches and scripts reach a package through its entry point or its command, never by a path into it.",
      from: { path: '^(test|bench|scripts|infra)/' },
      to: { path: '^packages/', pathNot: ENTRY_POINTS },
    },
    {
      name: 'packages-use-the-app-through-its-entry-modules',
      severity: 'error',
      comment:
        "A tool uses the app through its entry modules (the core's index, an adapter, the app as hosts load it).",
      from: { path: '^packages/' },
      to: { path: '^src/', pathNot: APP_ENTRY_POINTS },
    },
    {
      name: 'emulators-stand-alone',
      severity: 'error',
      comment: 'The emulators are products of their own: nothing of the app, the host, the CLI or the launcher.',
      from: { path: '^packages/(servicebus-emulator|cosmos-emulator|dev-certificate)/' },
      to: { path: ['^src/', '^packages/(local-host|cli|launcher)/'] },
    },
    {
      name: 'cli-below-the-host',
      severity: 'error',
      comment:
        'The CLI (and its console) sits on the app: it may use src/, never the local host or the emulators (its tests may start them).',
      from: { path: '^packages/cli/(src|bin)/' },
      to: { path: '^packages/(local-host|servicebus-emulator|cosmos-emulator)/' },
    },
    {
      name: 'launcher-stands-alone',
      severity: 'error',
      comment: 'The launcher builds and runs our code from bundles: it imports none of it.',
      from: { path: '^packages/launcher/' },
      to: { path: ['^src/', '^packages/(?!launcher/)', '^(bench|test)/'] },
    },
    {
      name: 'examples-stand-alone',
      severity: 'error',
      comment:
        "An example is copied into another app: it uses the app only by its name, through the root's exports (ledger-convoy/core), and nothing else of ours.",
      from: { path: '^examples/' },
      to: { path: '^(src|packages|test|bench|scripts|infra)/', pathNot: APP_ENTRY_POINTS },
    },
    {
      name: 'nothing-imports-tests',
      severity: 'error',
      comment: 'Test code is for tests: move what another part needs out of the tests.',
      from: { pathNot: ['^test/', '^packages/[^/]+/test/'] },
      to: { path: ['^test/', '^packages/[^/]+/test/'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^node_modules', '^dist/', '^coverage/', '^\\.tools/', '^\\.start/', '/compat/.*/(bin|obj)/'] },
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
