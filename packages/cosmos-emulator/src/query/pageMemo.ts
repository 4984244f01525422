import type { PageInput } from './executable.js';

/** How many multi-page results are remembered at once. */
const CAPACITY = 32;

interface Entry {
  documents: unknown[];
  input: PageInput;
}

/*
 * A continuation used to mean running the whole query again and then seeking to the token. A query's
 * rows are a pure function of its text, parameters and input documents (the library has no
 * time-dependent or random functions), and stored documents are immutable objects, so when the next
 * page's input is element-for-element the same objects the previous rows can be paged directly: the
 * page is exactly what the re-run would give. Any write to a candidate document makes the input differ
 * and the query runs again, which keeps continuation semantics (and exactly-once paging) unchanged.
 */

/** Rows of recent multi-page query results, keyed by query, parameters and scope. */
export class PageMemo {
  private readonly entries = new Map<string, Entry>();

  /** The remembered paging input, when `documents` are the very same objects it was computed from. */
  get(key: string, documents: unknown[]): PageInput | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || entry.documents.length !== documents.length) return undefined;
    for (let i = 0; i < documents.length; i += 1) if (entry.documents[i] !== documents[i]) return undefined;
    return entry.input;
  }

  /** True when rows are remembered for `key`, whatever documents they came from. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Remembers the paging input computed from `documents`. */
  set(key: string, documents: unknown[], input: PageInput): void {
    this.entries.delete(key);
    this.entries.set(key, { documents, input });
    if (this.entries.size > CAPACITY) this.entries.delete(this.entries.keys().next().value as string);
  }
}
