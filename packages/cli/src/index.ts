/**
 * The CLI's library, for the repository's tests, benchmarks and chaos run: generating runs of ledgers with their
 * expected outcome, sending and verifying them, reading dead letters and outbox holds. The `convoy` command is
 * `bin/convoy.mjs`; the operator console is `./console`.
 */
export { compareWithExpectation, type Comparison, type FoundDeadLetter, orderDifferences } from './compare.js';
export { hasCosmosConnection, withCosmosFlag, withOrdersContainer } from './cosmos.js';
export {
  DEFAULT_EXPECTATION_FILE,
  type Expectation,
  expectationOf,
  readExpectation,
  writeExpectation,
} from './expectation.js';
export {
  DEFAULT_GENERATE_OPTIONS,
  type GeneratedRun,
  type GenerateOptions,
  generateRun,
  type RunCounts,
} from './generator.js';
export { FunctionApi, type FunctionApiOptions } from './httpApi.js';
export {
  belongsToRun,
  entryIdOf,
  ledgerIdOf,
  messageEntryId,
  messageIdText,
  messageSequence,
  orderIdOf,
  poisonIdOf,
  RUN_ID_PATTERN,
  runIdOf,
  stripMessageIdSuffixes,
} from './ids.js';
export type { CliIo } from './io.js';
export { type ExpectedOrder, expectedOrders, ORACLE_MAX_TRANSACTIONS, type OracleEntry } from './oracle.js';
export { Prng } from './prng.js';
export { runCli } from './program.js';
export { runSend, sendSchedule, type SendOptions, type SendReport, type SendTarget } from './send.js';
export {
  asCliError,
  openServiceBus,
  peekAll,
  peekSequenceNumbers,
  subscriptionPath,
  withServiceBus,
} from './serviceBus.js';
export {
  addConnectionOptions,
  type CliSettings,
  type ConnectionFlags,
  EMBEDDED_STACK_SETTINGS,
  type EmbeddedConnection,
  requireServiceBus,
  resolveCliSettings,
  usesEmbeddedDefault,
} from './settings.js';
export { table } from './table.js';
export {
  foundDeadLetter,
  readDeadLetters,
  readOrders,
  runVerify,
  type VerifyOptions,
  type VerifyReport,
} from './verify.js';
export { type DlqListing, type DlqListOptions, type RejectedRow, runDlqList } from './dlq/list.js';
export { discardOutbox, listOutbox, outboxCommand, type OutboxListing, retryOutbox } from './commands/outboxRetry.js';
