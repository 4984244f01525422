import type { MessageStore, StoreRecord } from './messageStore.js';

/** The default store: nothing survives a restart, nothing waits for a disk. */
export class MemoryStore implements MessageStore {
  readonly durable = false;
  append(_record: StoreRecord): void {}
  flush(): Promise<void> {
    return Promise.resolve();
  }
  load(): StoreRecord[] {
    return [];
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}
