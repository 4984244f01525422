/**
 * Message ids seen within a time window of any length. A Map keeps insertion order, and ids are recorded in
 * time order, so pruning only ever looks at the front.
 */
export class DedupWindow {
  private readonly seenAt = new Map<string, number>();

  constructor(public windowMs: number) {}

  /** Whether `id` was recorded less than the window ago. */
  seen(id: string, now: number): boolean {
    this.prune(now);
    const at = this.seenAt.get(id);
    return at !== undefined && now - at < this.windowMs;
  }

  /** Records `id` at `at`. */
  add(id: string, at: number): void {
    this.seenAt.delete(id);
    this.seenAt.set(id, at);
  }

  private prune(now: number): void {
    for (const [id, at] of this.seenAt) {
      if (now - at < this.windowMs) break;
      this.seenAt.delete(id);
    }
  }
}
