/**
 * Every function of the app. Importing this module registers them all (through `register.ts`) with the Functions
 * host and in the list the in-process host (`local/`) serves. Add new function modules here.
 */
import './ledgerSplitter.js';
import './orderProcessor.js';
import './getOrder.js';
import './postLedger.js';
import './outboxSweep.js';
import './gapMonitor.js';
