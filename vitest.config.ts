import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'default', include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'] } },
      // The Cosmos emulator's conformance suite again, with every container served as two partition key ranges
      // (not the suites that start their own emulators: https, and the .NET check's run.sh).
      {
        extends: true,
        test: {
          name: 'cosmos-2-ranges',
          include: ['packages/cosmos-emulator/test/**/*.test.ts'],
          exclude: ['packages/cosmos-emulator/test/https.test.ts', 'packages/cosmos-emulator/test/dotnet.test.ts'],
          env: { COSMOS_PARTITION_KEY_RANGES: '2' },
        },
      },
    ],
    coverage: {
      // The gate covers the pure core: every decision lives there, so it must stay fully exercised.
      provider: 'v8',
      include: ['src/core/**/*.ts'],
      exclude: [
        'src/core/**/index.ts',
        'src/core/ports/**',
        'src/core/documents/orderDocument.ts',
        'src/core/documents/parkedEntryDocument.ts',
      ],
      reporter: ['text-summary'],
      thresholds: { lines: 95, statements: 95, functions: 95, branches: 90 },
    },
  },
});
