/**
 * The in-process host as a library, for the repository's tests, benchmarks and chaos run: start the app's functions
 * with the real host's trigger semantics, the emulator stack, and child processes of the stack. `npm start` is
 * `bin/local-host.mjs`.
 */
export * from './localHost.js';
export * from './functionRegistry.js';
export * from './emulatorStack.js';
export * from './childProcess.js';
export * from './paths.js';
export * from './config/serviceBusHostOptions.js';
export * from './cosmosResources.js';
export * from './logging/logger.js';
export * from './azureFunctions.js';
export * from './cosmos/cosmosDBHost.js';
export * from './localConsole.js';
export type * from './registrations.js';
