import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../../compat/dotnet/cosmos/run.sh', import.meta.url));
const hasDotnet = ((): boolean => {
  try {
    execFileSync('dotnet', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('the .NET Microsoft.Azure.Cosmos SDK against the emulator', () => {
  // The first NuGet restore and build can take a minute or more. Skipped without dotnet on a laptop; under CI
  // a missing dotnet fails here instead, so CI never goes green without the .NET check.
  it.skipIf(!hasDotnet && !process.env.CI)(
    'passes every check over https and http, with endpoint discovery and with LimitToEndpoint',
    () => {
      if (!hasDotnet) throw new Error('CI is set but dotnet is not on PATH: the .NET Cosmos compatibility check is required in CI.');
      const run = spawnSync('bash', [script], { encoding: 'utf8', timeout: 600_000 });
      const output = `${run.stdout}\n${run.stderr}`;
      // One PASS per transport (https, then http); each run covers discovery and LimitToEndpoint.
      expect(output.match(/PASS \.NET Cosmos compatibility check/g)?.length, output).toBe(2);
      expect(output).not.toMatch(/^FAIL /m);
      expect(run.status, output).toBe(0);
    },
    620_000,
  );
});
