/**
 * The emulators' published, non-secret keys, shared by the startup banner and the CLI's embedded-stack defaults.
 * Kept outside `emulators/` (and free of imports) so code that runs against Azure loads no emulator code; here, below
 * both the CLI and the local host, so both may import it (docs/architecture.md).
 */

/** The Cosmos DB emulators' published account key (the official emulator's, which the embedded one also accepts). */
export const COSMOS_EMULATOR_KEY =
  'C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==';
/** The Service Bus emulators' placeholder key (`SharedAccessKey=SAS_KEY_VALUE`). */
export const SERVICE_BUS_EMULATOR_KEY = 'SAS_KEY_VALUE';
