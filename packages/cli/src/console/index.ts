/** The operator console, as `npm start` serves it beside the app (packages/local-host) and `convoy console` alone. */
export { type ConsoleOptions, type RunningConsole, startConsole } from './consoleServer.js';
export { consoleTarget, type ConsoleTarget } from './consoleTarget.js';
export type { ConsoleAlert, ConsoleTelemetry } from './consoleTelemetry.js';
export type { CliSettings } from '../settings.js';
