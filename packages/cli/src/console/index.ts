/** The operator console, as `npm start` serves it beside the app (packages/local-host) and `convoy console` alone. */
export * from './consoleServer.js';
export * from './consoleTarget.js';
export type * from './consoleTelemetry.js';
export type { CliSettings } from '../settings.js';
