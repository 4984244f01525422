/**
 * The CLI's library, for the repository's tests, benchmarks and chaos run: generating runs of ledgers with their
 * expected outcome, sending and verifying them, reading dead letters and outbox holds. The `convoy` command is
 * `bin/convoy.mjs`; the operator console is `./console`.
 */
export * from './compare.js';
export * from './cosmos.js';
export * from './expectation.js';
export * from './generator.js';
export * from './httpApi.js';
export * from './ids.js';
export type * from './io.js';
export * from './oracle.js';
export * from './prng.js';
export * from './program.js';
export * from './serviceBus.js';
export * from './settings.js';
export * from './table.js';
export * from './verify.js';
export * from './dlq/list.js';
export * from './commands/outboxRetry.js';
