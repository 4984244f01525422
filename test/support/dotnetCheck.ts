import { execFileSync, spawnSync } from 'node:child_process';

/** Whether a dotnet SDK is on PATH (the .NET compatibility checks need it). */
export const hasDotnet = ((): boolean => {
  try {
    execFileSync('dotnet', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * Skipped without dotnet on a laptop; under CI a missing dotnet fails instead, so CI never goes green without the
 * .NET checks.
 */
export const skipDotnetCheck = !hasDotnet && !process.env.CI;

/**
 * Runs a package's `compat/dotnet/run.sh` (it starts its own emulator, restores, builds and runs the .NET program) and
 * returns its status and combined output. The first NuGet restore and build can take a minute or more.
 */
export function runDotnetCheck(
  script: string,
  what: string,
  timeoutMs: number,
): { status: number | null; output: string } {
  if (!hasDotnet)
    throw new Error(`CI is set but dotnet is not on PATH: the .NET ${what} compatibility check is required in CI.`);
  const run = spawnSync('bash', [script], { encoding: 'utf8', timeout: timeoutMs });
  return { status: run.status, output: `${run.stdout}\n${run.stderr}` };
}
