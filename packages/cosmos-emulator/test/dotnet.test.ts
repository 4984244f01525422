import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runDotnetCheck, skipDotnetCheck } from '../../../test/support/dotnetCheck.js';

const script = fileURLToPath(new URL('../compat/dotnet/run.sh', import.meta.url));

describe('the .NET Microsoft.Azure.Cosmos SDK against the emulator', () => {
  it.skipIf(skipDotnetCheck)(
    'passes every check over https and http, with endpoint discovery and with LimitToEndpoint',
    () => {
      const { status, output } = runDotnetCheck(script, 'Cosmos', 600_000);
      // One PASS per transport (https, then http); each run covers discovery and LimitToEndpoint.
      expect(output.match(/PASS \.NET Cosmos compatibility check/g)?.length, output).toBe(2);
      expect(output).not.toMatch(/^FAIL /m);
      expect(status, output).toBe(0);
    },
    620_000,
  );
});
