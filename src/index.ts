/**
 * Entry point of the function app (package.json `main`). Application Insights is started first, when configured,
 * so the SDK clients created later are instrumented; then every function registers. HTTP streaming stays off (the
 * default): request bodies are at most 256 KB and are read whole.
 */
import { enableApplicationInsights } from './adapters/azureClients.js';
import { errorMessage } from './core/index.js';

try {
  await enableApplicationInsights(process.env);
} catch (error) {
  // Telemetry must not keep orders from being processed: report the bad setting and carry on without it.
  console.error(`Application Insights not started: ${errorMessage(error)}`);
}
await import('./functions/index.js');
