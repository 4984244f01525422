import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { foldLog, toRecords } from './foldLog.js';
import type { MessageStore, StoreRecord } from './messageStore.js';

const LOG = 'servicebus.log';

/**
 * An append-only JSON-lines log. Appends are batched per event-loop turn; `flush()` resolves once everything
 * appended before it is written and fdatasync'ed (group commit), which is when a send is acknowledged. At open
 * the log is replayed and rewritten compacted; a torn last line (crash mid-write) is ignored.
 */
export class FileStore implements MessageStore {
  readonly durable = true;
  private pending: string[] = [];
  private waiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;
  private writing: Promise<void> | undefined;

  private constructor(
    private readonly fh: FileHandle,
    private readonly records: StoreRecord[],
  ) {}

  /** Opens (creating) the log in `dir`, compacting it. */
  static async open(dir: string): Promise<FileStore> {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, LOG);
    const records: StoreRecord[] = [];
    if (existsSync(path)) {
      for (const line of readFileSync(path, 'utf8').split('\n')) {
        if (!line) continue;
        try {
          records.push(JSON.parse(line) as StoreRecord);
        } catch {
          break; // a torn final write: everything after it was never acknowledged
        }
      }
    }
    const compacted = toRecords(foldLog(records));
    const tmp = `${path}.tmp`;
    const out = await open(tmp, 'w');
    await out.writeFile(compacted.map((r) => `${JSON.stringify(r)}\n`).join(''));
    await out.datasync();
    await out.close();
    await rename(tmp, path);
    const fh = await open(path, 'a');
    return new FileStore(fh, compacted);
  }

  load(): StoreRecord[] {
    return this.records;
  }

  append(record: StoreRecord): void {
    this.pending.push(`${JSON.stringify(record)}\n`);
    this.schedule();
  }

  flush(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.schedule();
    });
  }

  async close(): Promise<void> {
    await this.flush();
    await this.writing;
    await this.fh.close();
  }

  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.writing = this.drain().finally(() => {
        this.writing = undefined;
        if (this.pending.length > 0 || this.waiters.length > 0) this.schedule();
      });
    });
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0 || this.waiters.length > 0) {
      const data = this.pending.join('');
      this.pending = [];
      const waiters = this.waiters;
      this.waiters = [];
      try {
        if (data) await this.fh.write(data);
        if (waiters.length > 0) await this.fh.datasync();
        for (const w of waiters) w.resolve();
      } catch (err) {
        for (const w of waiters) w.reject(err);
      }
    }
  }
}
