// What the launcher bundles, for both commands that run our TypeScript from bundles: `npm start`
// (packages/local-host/bin/local-host.mjs) runs the host and its worker threads, `npx convoy`
// (packages/cli/bin/convoy.mjs) the CLI. One list, so the vendor bundle they
// share holds the packages of all three whichever command built it last.

/** The parts, each with its entry points (relative to the repository) and a directory of assets copied as `static/`. */
export const PARTS = {
  // The host serves the operator console, whose page and script it reads beside its code.
  host: { entryPoints: { main: 'packages/local-host/src/main.ts' }, assets: 'packages/cli/src/console/static' },
  // The host's worker threads: the emulators', and the Service Bus triggers' (found beside the emulators' entry).
  workers: {
    entryPoints: {
      emulatorWorker: 'packages/local-host/src/emulatorWorker.ts',
      triggerWorker: 'packages/local-host/src/triggerWorker.ts',
    },
  },
  // `convoy console` serves the same page.
  cli: { entryPoints: { convoy: 'packages/cli/src/main.ts' }, assets: 'packages/cli/src/console/static' },
};

/** Files that shape every build without being imported: a change to one makes every bundle stale. */
export const INPUTS = ['package.json', 'tsconfig.json'];
