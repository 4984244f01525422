/**
 * Registers the app with the Functions host: the functions and hooks `composeApp` defines, each given to `app`.
 */
import { ensureServiceBusSdkBinding } from '../adapters/functionsServiceBusExtension.js';
import { composeApp } from './app.js';
import { registerWithHost } from './register.js';

// Fails at load, not on the first message, when the Service Bus triggers' SDK binding cannot work.
ensureServiceBusSdkBinding();
registerWithHost(composeApp());
