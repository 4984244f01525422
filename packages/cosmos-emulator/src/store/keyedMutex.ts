/**
 * Serialises async work per key (here: per container partition). Work for one key runs strictly one
 * after another; different keys run concurrently. Stage → persist → apply happens inside one turn, so
 * a batch and a concurrent single write on the same partition can never interleave.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `work` after all earlier work for `key` has settled. */
  async run<T>(key: string, work: () => Promise<T> | T): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      // Drop the entry when nobody queued behind us, so idle partitions cost nothing.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
