/**
 * The in-process host as a library, for the repository's tests, benchmarks and chaos run: start the app's functions
 * with the real host's trigger semantics, the emulator stack, and child processes of the stack. `npm start` is
 * `bin/local-host.mjs`.
 */
export { type LocalHost, type LocalHostOptions, startLocalHost } from './localHost.js';
export { groupFunctions, loadApp } from './functionRegistry.js';
export { type EmulatorStack, type EmulatorStackOptions, startEmulatorStack } from './emulatorStack.js';
export { type Child, launchServiceBusEmulator, startChild } from './childProcess.js';
export { repoPath } from './paths.js';
export {
  defaultServiceBusHostOptions,
  loadServiceBusHostOptions,
  type ServiceBusHostOptions,
  serviceBusHostOptionsFrom,
} from './config/serviceBusHostOptions.js';
export { appDatabase, cosmosResources, ensureCosmosResources } from './cosmosResources.js';
export { createHostLogger, type HostLoggerOptions } from './logging/logger.js';
export { HttpRequest, HttpResponse, InvocationContext } from './azureFunctions.js';
export { type CosmosDBHost, startCosmosDBHost } from './cosmos/cosmosDBHost.js';
export { type LocalConsoleOptions, startLocalConsole } from './localConsole.js';
export type { FunctionRegistration, RegistrationOf } from './registrations.js';
