/**
 * The emulators' published, non-secret keys: the CLI's defaults for the embedded stack, and the local host's
 * start-up banner (through `@ledger-convoy/cli/emulatorKeys`). Free of imports, so the host's banner loads nothing
 * else of the CLI; in the CLI, not the app, since only the tools use them.
 */

/** The Cosmos DB emulators' published account key (the official emulator's, which the embedded one also accepts). */
export const COSMOS_EMULATOR_KEY =
  'C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==';
/** The Service Bus emulators' placeholder key (`SharedAccessKey=SAS_KEY_VALUE`). */
export const SERVICE_BUS_EMULATOR_KEY = 'SAS_KEY_VALUE';
