import { addContainer } from './handlers/containers.js';
import type { AccountStore } from './store/accountStore.js';

/** A database to have, with its containers, each as the body of its create request. */
export interface DatabaseSeed {
  id: string;
  containers?: readonly { id: string; [property: string]: unknown }[];
}

/**
 * Creates the databases and containers that are missing (a durable store may have them from an earlier run), as
 * create requests without throughput headers would: a container gets the service's completion of its body and
 * 400 RU/s. One that exists is left as it is.
 */
export async function seed(store: AccountStore, seeds: readonly DatabaseSeed[]): Promise<void> {
  for (const { id, containers = [] } of seeds) {
    if (!store.listDatabases().some((db) => db.id === id)) await store.createDatabase({ id });
    const existing = new Set(store.listContainers(id).map((container) => container.id));
    for (const body of containers) {
      if (!existing.has(body.id)) await addContainer(store, id, body, undefined);
    }
  }
}
