import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'default', include: ['test/**/*.test.ts'] } },
      // The Cosmos emulator's conformance suite again, with every container served as two partition key ranges
      // (not the suites that start their own emulators: https, and the .NET check's run.sh).
      {
        extends: true,
        test: {
          name: 'cosmos-2-ranges',
          include: ['test/emulators/cosmos/**/*.test.ts'],
          exclude: ['test/emulators/cosmos/https.test.ts', 'test/emulators/cosmos/dotnet.test.ts'],
          env: { COSMOS_PARTITION_KEY_RANGES: '2' },
        },
      },
    ],
    coverage: {
      // The gate covers the pure core: every decision lives there, so it must stay fully exercised. Its testing
      // helpers (in-memory store, recorders) are not product code and do not count.
      provider: 'v8',
      include: ['src/core/**/*.ts'],
      exclude: ['src/core/**/index.ts', 'src/core/testing/**', 'src/core/ports/**', 'src/core/documents/orderDocument.ts', 'src/core/documents/parkedEntryDocument.ts'],
      reporter: ['text-summary'],
      thresholds: { lines: 95, statements: 95, functions: 95, branches: 90 },
    },
  },
});
