/** The template's defaults that bound a deployment's throughput, read from infra/main.bicep. */
import { readFileSync } from 'node:fs';
import { repoPath } from '@ledger-convoy/local-host';

/** `maximumInstanceCount` and `maxConcurrentSessions` as infra/main.bicep declares their defaults. */
export function templateDefaults(bicep = readFileSync(repoPath('infra/main.bicep'), 'utf8')): {
  maximumInstanceCount: number;
  maxConcurrentSessions: number;
} {
  return {
    maximumInstanceCount: intParam(bicep, 'maximumInstanceCount'),
    maxConcurrentSessions: intParam(bicep, 'maxConcurrentSessions'),
  };
}

function intParam(bicep: string, name: string): number {
  const match = new RegExp(`^param ${name} int = (\\d+)$`, 'm').exec(bicep);
  if (!match) throw new Error(`infra/main.bicep declares no int default for ${name}`);
  return Number(match[1]);
}
