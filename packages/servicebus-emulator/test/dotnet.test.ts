import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runDotnetCheck, skipDotnetCheck } from '../../../test/support/dotnetCheck.js';

const script = fileURLToPath(new URL('../compat/dotnet/run.sh', import.meta.url));

describe('the .NET Azure.Messaging.ServiceBus SDK against the emulator', () => {
  it.skipIf(skipDotnetCheck)(
    'passes every check: sends, processors with prefetch and with sessions, typed settlement properties, the DLQ, the administration client',
    () => {
      const { status, output } = runDotnetCheck(script, 'Service Bus', 300_000);
      expect(output).toContain('PASS .NET compatibility check');
      expect(output).not.toContain('FAIL ');
      expect(status, output).toBe(0);
    },
    320_000,
  );
});
