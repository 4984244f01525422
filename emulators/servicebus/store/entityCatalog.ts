import { existsSync, readFileSync } from 'node:fs';
import { mkdir, open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { NamespaceConfig } from '../config.js';
import { loadConfig } from '../config.js';
import { toConfigJson } from '../configWriter.js';

const FILE = 'entities.json';

/**
 * The namespace's entities in the data directory (`entities.json`, Config.json format), so queues, topics,
 * subscriptions and rules made through the management API survive a restart. Once the file exists it is the
 * namespace: the `--config` file only seeds an empty data directory. Each save is written to a temporary file,
 * fsync'ed and renamed over the old one, so a crash leaves either version whole; saves run one at a time.
 */
export class EntityCatalog {
  private chain: Promise<void> = Promise.resolve();

  private constructor(private readonly path: string) {}

  /** The catalog of `dir`; nothing is written until {@link save}. */
  static at(dir: string): EntityCatalog {
    return new EntityCatalog(join(dir, FILE));
  }

  /** The saved namespace, or undefined for a fresh data directory. */
  load(): NamespaceConfig | undefined {
    if (!existsSync(this.path)) return undefined;
    return loadConfig(JSON.parse(readFileSync(this.path, 'utf8')) as object, { snapshot: true });
  }

  /** Writes the namespace durably; resolves once it is on disk. */
  save(ns: NamespaceConfig): Promise<void> {
    const text = `${JSON.stringify(toConfigJson(ns), null, 2)}\n`;
    const next = this.chain.then(() => this.write(text));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async write(text: string): Promise<void> {
    const dir = join(this.path, '..');
    await mkdir(dir, { recursive: true });
    const tmp = `${this.path}.tmp`;
    const fh = await open(tmp, 'w');
    try {
      await fh.writeFile(text);
      await fh.datasync();
    } finally {
      await fh.close();
    }
    await rename(tmp, this.path);
  }
}
