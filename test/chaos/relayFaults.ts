import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Container } from '@azure/cosmos';
import {
  LEASE_CONTAINER,
  OUTBOX_RELAY_LEASE_PREFIX,
  readLeases,
  type ChangeFeedLease,
} from '../../src/adapters/changeFeedLease.js';

/** Owner a lost lease is given: no host has that name, and its timestamp says it expired long ago. */
export const GHOST_OWNER = 'chaos-lost-lease';

/** The directory of the relay crash orders under the run directory (`CHAOS_RELAY_CRASH_DIR` of the hosts). */
export function relayCrashDir(runDir: string): string {
  return join(runDir, 'relay-crashes');
}

/** Orders the next host whose relay invocation sends something to SIGKILL itself before the checkpoint (`hostFaults.ts`). */
export async function orderRelayCrash(runDir: string, fault: number): Promise<void> {
  const dir = relayCrashDir(runDir);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `crash-${fault}.ordered`), '');
}

/**
 * Takes one of the relay's leases (`index` modulo their count) from its owner: a ghost owner and an expired
 * timestamp, so the owner's next renewal or checkpoint finds it lost and a host takes the range from its last
 * checkpoint. `false` when the relay has no lease yet.
 */
export async function loseLease(orders: Container, index: number): Promise<boolean> {
  const leases = orders.database.container(LEASE_CONTAINER);
  const all = await readLeases(leases, OUTBOX_RELAY_LEASE_PREFIX);
  if (all.length === 0) return false;
  const lease = all.sort((a, b) => (a.id < b.id ? -1 : 1))[index % all.length] as ChangeFeedLease;
  await leases.item(lease.id, lease.id).replace({ ...lease, Owner: GHOST_OWNER, timestamp: new Date(0).toISOString() });
  return true;
}
