import { describe, expect, it } from 'vitest';
import type { AzureMonitorOpenTelemetryOptions } from 'applicationinsights';
import { startLocalTelemetry } from '../src/applicationInsights.js';
import { capturingLogger } from './support/logCapture.js';

const CONNECTION = 'InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://example.invalid/';

function fakeSdk() {
  const calls = { loads: 0, started: [] as (AzureMonitorOpenTelemetryOptions | undefined)[], shutdowns: 0 };
  const load = async () => {
    calls.loads++;
    return {
      useAzureMonitor: (options?: AzureMonitorOpenTelemetryOptions) => void calls.started.push(options),
      shutdownAzureMonitor: async () => void calls.shutdowns++,
    };
  };
  return { calls, load };
}

describe('Application Insights in the local host', () => {
  it('is started with the connection string when APPLICATIONINSIGHTS_CONNECTION_STRING is set, and flushed on close', async () => {
    const { calls, load } = fakeSdk();
    const { logger } = capturingLogger();
    const telemetry = await startLocalTelemetry({ APPLICATIONINSIGHTS_CONNECTION_STRING: CONNECTION }, logger, load);
    await telemetry.close();
    expect(telemetry.enabled).toBe(true);
    expect(calls.started).toEqual([{ azureMonitorExporterOptions: { connectionString: CONNECTION } }]);
    expect(calls.shutdowns).toBe(1);
  });

  it('loads nothing without the setting (an empty one included)', async () => {
    const { calls, load } = fakeSdk();
    const { logger } = capturingLogger();
    const telemetry = await startLocalTelemetry({ APPLICATIONINSIGHTS_CONNECTION_STRING: '' }, logger, load);
    await telemetry.close();
    expect(telemetry.enabled).toBe(false);
    expect(calls.loads).toBe(0);
  });

  it('logs a bad authentication setting and runs on without telemetry', async () => {
    const { calls, load } = fakeSdk();
    const { logger, lines } = capturingLogger();
    const telemetry = await startLocalTelemetry(
      {
        APPLICATIONINSIGHTS_CONNECTION_STRING: CONNECTION,
        APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'Authorization=Key',
      },
      logger,
      load,
    );
    expect(telemetry.enabled).toBe(false);
    expect(calls.started).toEqual([]);
    expect(lines.some((l) => l.msg === 'Application Insights not started' && l.level === 40)).toBe(true);
  });
});
