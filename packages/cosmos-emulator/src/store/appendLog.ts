import { mkdir, open, readFile, rename } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { MetadataRecord } from './metadataStore.js';
import type { ContainerResource, DatabaseResource, StoredDocument } from './types.js';

/** One durable change. Document changes of one commit (a batch) form one record, so replay is atomic too. */
export type LogRecord =
  | { k: 'db'; res: DatabaseResource }
  | { k: 'dbdel'; id: string }
  /**
   * `lsn`: in a snapshot, the container's last LSN, so LSNs of documents deleted since stay taken. `ranges`: the
   * partition key ranges it was created with, when its throughput asked for more than the store's default.
   */
  | { k: 'coll'; db: string; res: ContainerResource; lsn?: number; ranges?: number }
  | { k: 'colldel'; db: string; id: string }
  | { k: 'docs'; db: string; coll: string; puts: StoredDocument[]; dels: { pk: string; id: string }[] }
  | MetadataRecord;

const LOG_FILE = 'cosmos-emulator.log';

/**
 * Append-only JSON-lines log with group commit: records queued while an fsync is in flight are
 * written and synced together, and every `append` resolves only after its bytes are on disk.
 */
export class AppendLog {
  private queue: { line: string; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private flushing = false;

  private constructor(
    private handle: FileHandle,
    private readonly dir: string,
  ) {}

  /** Opens (creating if needed) the log in `dir` and returns it with the records found there. */
  static async open(dir: string): Promise<{ log: AppendLog; records: LogRecord[] }> {
    await mkdir(dir, { recursive: true });
    const path = join(dir, LOG_FILE);
    let text = '';
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const records: LogRecord[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        records.push(JSON.parse(line) as LogRecord);
      } catch {
        // A torn final line is a write that was never acknowledged; stop there.
        break;
      }
    }
    const handle = await open(path, 'a');
    return { log: new AppendLog(handle, dir), records };
  }

  /** Appends a record and resolves once it is fsynced. */
  append(record: LogRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ line: `${JSON.stringify(record)}\n`, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  /** Rewrites the log as `records` (a snapshot of current state), atomically via rename. */
  async compact(records: LogRecord[]): Promise<void> {
    const tmpPath = join(this.dir, `${LOG_FILE}.tmp`);
    const tmp = await open(tmpPath, 'w');
    try {
      await tmp.writeFile(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
      await tmp.sync();
    } finally {
      await tmp.close();
    }
    await this.handle.close();
    await rename(tmpPath, join(this.dir, LOG_FILE));
    this.handle = await open(join(this.dir, LOG_FILE), 'a');
    await this.handle.sync();
  }

  /** Flushes pending records and closes the file. */
  async close(): Promise<void> {
    while (this.flushing || this.queue.length > 0) {
      await new Promise((r) => setTimeout(r, 5));
    }
    await this.handle.close();
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const group = this.queue;
      this.queue = [];
      try {
        await this.handle.write(group.map((g) => g.line).join(''));
        await this.handle.datasync();
        for (const g of group) g.resolve();
      } catch (error) {
        for (const g of group) g.reject(error);
      }
    }
    this.flushing = false;
  }
}
