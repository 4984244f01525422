/** A small least-recently-used cache keyed by string (a `Map` keeps insertion order, so its first key is the oldest). */
export class LruCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  /** The cached value for `key`, building and caching it on a miss. */
  get(key: string, build: () => V): V {
    const cached = this.entries.get(key);
    if (cached !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    const value = build();
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    return value;
  }
}
