/**
 * Every function of the app. Importing this module registers them all (through `register.ts`) with the Functions
 * host and in the list the in-process host (`local/`) serves, together with the app's lifecycle hooks. Add new
 * function modules here.
 */
import './ledgerSplitter.js';
import './orderProcessor.js';
import './getOrder.js';
import './postLedger.js';
import './outboxRelay.js';
import './outboxGauges.js';
import './outboxHoldRetry.js';
import './gapMonitor.js';
import './appLifecycle.js';
