import { isIndexable } from '../query/equalityFilter.js';
import type { IndexableValue } from '../query/equalityFilter.js';
import type { StoredDocument } from './types.js';

/** How many properties one container indexes at most (ad-hoc queries must not grow memory without bound). */
const MAX_PROPERTIES = 16;

type ValueMap = Map<IndexableValue, Set<StoredDocument>>;

/**
 * Secondary index of one container: for each indexed top-level property, the stored documents by
 * scalar value (documents whose value is missing or not a scalar cannot equal a scalar and are left
 * out). A property is indexed on the first query that asks for it and kept up to date by
 * {@link add}/{@link remove}, which the store calls for every document it puts, replaces, deletes or
 * sweeps. Stored documents are never mutated (a write stores a new object), so removal finds the
 * entry under the value it was added with. Expired-but-unswept documents stay listed; readers check
 * expiry as they do for partitions.
 */
export class PropertyIndex {
  private readonly properties = new Map<string, ValueMap>();

  /** Indexes a document newly stored in the container. */
  add(doc: StoredDocument): void {
    for (const [property, values] of this.properties) {
      const value = valueOf(doc, property);
      if (value === undefined) continue;
      let docs = values.get(value);
      if (docs === undefined) values.set(value, (docs = new Set()));
      docs.add(doc);
    }
  }

  /** Forgets a document that left the container (deleted, replaced or swept). */
  remove(doc: StoredDocument): void {
    for (const [property, values] of this.properties) {
      const value = valueOf(doc, property);
      if (value === undefined) continue;
      const docs = values.get(value);
      if (docs === undefined) continue;
      docs.delete(doc);
      if (docs.size === 0) values.delete(value);
    }
  }

  /**
   * The documents whose `property` is one of `values`, as one set per value, indexing the property
   * from `all` first when needed; undefined when the container already indexes its maximum.
   */
  lookup(
    property: string,
    values: IndexableValue[],
    all: () => Iterable<StoredDocument>,
  ): Set<StoredDocument>[] | undefined {
    let index = this.properties.get(property);
    if (index === undefined) {
      if (this.properties.size >= MAX_PROPERTIES) return undefined;
      index = new Map();
      for (const doc of all()) {
        const value = valueOf(doc, property);
        if (value === undefined) continue;
        let docs = index.get(value);
        if (docs === undefined) index.set(value, (docs = new Set()));
        docs.add(doc);
      }
      this.properties.set(property, index);
    }
    const found: Set<StoredDocument>[] = [];
    for (const value of new Set(values)) {
      const docs = index.get(value);
      if (docs !== undefined) found.push(docs);
    }
    return found;
  }

  /** Indexed property names (for tests and diagnostics). */
  indexedProperties(): string[] {
    return [...this.properties.keys()];
  }
}

function valueOf(doc: StoredDocument, property: string): IndexableValue | undefined {
  if (!Object.prototype.hasOwnProperty.call(doc.body, property)) return undefined;
  const value = doc.body[property];
  return isIndexable(value) ? value : undefined;
}
