import { existsSync, readFileSync } from 'node:fs';
import { mkdir, open, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { NamespaceConfig } from '../config.js';
import { ConfigError, loadConfig } from '../config.js';
import { toConfigJson } from '../configWriter.js';

const FILE = 'entities.json';

/** Lower-cased paths of every queue, topic and subscription (`t/subscriptions/s`). */
function pathsOf(ns: NamespaceConfig): Set<string> {
  const out = new Set<string>();
  for (const q of ns.queues) out.add(q.name.toLowerCase());
  for (const t of ns.topics) {
    out.add(t.name.toLowerCase());
    for (const s of t.subscriptions) out.add(`${t.name}/subscriptions/${s.name}`.toLowerCase());
  }
  return out;
}

/**
 * The namespace's entities in the data directory (`entities.json`, Config.json format, plus the `Deleted` paths),
 * so queues, topics, subscriptions and rules made or changed through the management API survive a restart. At
 * start the saved namespace wins over `--config`, which still brings entities the data directory has never seen
 * (a queue added to the entity file later) but not ones deleted through the API. Each save goes to a temporary
 * file, is fsync'ed and renamed over the old one, so a crash leaves either version whole; saves run one at a time.
 */
export class EntityCatalog {
  private chain: Promise<void> = Promise.resolve();
  private known = new Set<string>();
  private deleted = new Set<string>();

  private constructor(private readonly path: string) {}

  /** The catalog of `dir`; nothing is written until {@link save}. */
  static at(dir: string): EntityCatalog {
    return new EntityCatalog(join(dir, FILE));
  }

  /** The namespace to serve: the saved one with what `config` adds, or `config` itself in a fresh data directory. */
  resolve(config: NamespaceConfig): NamespaceConfig {
    if (!existsSync(this.path)) return config;
    const raw = JSON.parse(readFileSync(this.path, 'utf8')) as { Deleted?: string[] };
    this.deleted = new Set(raw.Deleted ?? []);
    const saved = loadConfig(raw, { snapshot: true });
    this.refuseKindChanges(saved, config);
    const have = pathsOf(saved);
    const fresh = (path: string): boolean => !have.has(path.toLowerCase()) && !this.deleted.has(path.toLowerCase());
    const topics = saved.topics.map((t) => {
      const fromConfig = config.topics.find((c) => c.name.toLowerCase() === t.name.toLowerCase());
      const added = (fromConfig?.subscriptions ?? []).filter((s) => fresh(`${t.name}/subscriptions/${s.name}`));
      return added.length === 0 ? t : { ...t, subscriptions: [...t.subscriptions, ...added] };
    });
    return {
      namespace: saved.namespace,
      // The namespace's own rules are not changed through the API: the entity file's are the ones in force.
      authorizationRules: config.authorizationRules,
      queues: [...saved.queues, ...config.queues.filter((q) => fresh(q.name))],
      topics: [...topics, ...config.topics.filter((t) => fresh(t.name))],
    };
  }

  /**
   * A name that is a queue in the data directory and a topic in `config`, or the other way round, cannot be served
   * as either without losing what one of them says: refuse to start, naming the entity and the way out.
   */
  private refuseKindChanges(saved: NamespaceConfig, config: NamespaceConfig): void {
    const kinds = (ns: NamespaceConfig) =>
      new Map([
        ...ns.queues.map((q) => [q.name.toLowerCase(), 'queue'] as const),
        ...ns.topics.map((t) => [t.name.toLowerCase(), 'topic'] as const),
      ]);
    const before = kinds(saved);
    for (const [name, kind] of kinds(config)) {
      const was = before.get(name);
      if (was === undefined || was === kind) continue;
      throw new ConfigError(
        `Invalid Service Bus config: entity "${name}" is a ${kind} in the entity file but a ${was} in the data directory (${dirname(this.path)}): delete the data directory, or the entity through the management API, and start again`,
      );
    }
  }

  /**
   * Writes the namespace durably (and which entities were deleted since the last save); resolves once on disk.
   * Entities in `idleDeleted` (paths) were deleted for being idle (`AutoDeleteOnIdle`), not by a client: they are not
   * remembered as deleted, so one the entity file declares is created again at the next start.
   */
  save(ns: NamespaceConfig, idleDeleted: readonly string[] = []): Promise<void> {
    const now = pathsOf(ns);
    const idle = new Set(idleDeleted.map((p) => p.toLowerCase()));
    for (const p of this.known) if (!now.has(p) && !idle.has(p)) this.deleted.add(p);
    for (const p of now) this.deleted.delete(p);
    this.known = now;
    const text = `${JSON.stringify({ ...toConfigJson(ns), Deleted: [...this.deleted] }, null, 2)}\n`;
    const next = this.chain.then(() => this.write(text));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async write(text: string): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
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
