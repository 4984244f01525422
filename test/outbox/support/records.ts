import type { OutboxDispatchRecord } from '../../../src/core/outbox/outboxRecordState.js';
import type { OutboxCounts, OutboxStore } from '../../../src/core/outbox/outboxPorts.js';
import type { OutboxSummary } from '../../../src/core/outbox/outboxOrdering.js';
import type { Stored } from '../../../src/core/ports/orderStore.js';

/** A pending outbox record as the processor writes it. */
export function pendingRecord(orderId: string, sequence: number, overrides: Partial<OutboxDispatchRecord> = {}): OutboxDispatchRecord {
  const entryId = `${orderId}-${sequence}`;
  return {
    id: `outbox:${entryId}`,
    docType: 'outbox',
    orderId,
    entryId,
    sequence,
    type: sequence === 1 ? 'OrderCreated' : 'TransactionAdded',
    correlationId: 'L-1',
    order: { orderId, status: 'open', customerId: 'c-1', currency: 'EUR', lastSequence: sequence, total: 0, transactions: [] },
    status: 'pending',
    attempts: 0,
    createdAt: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** An in-memory {@link OutboxStore} with ETags, for the dispatcher's unit tests. */
export class InMemoryOutboxStore implements OutboxStore {
  readonly docs = new Map<string, Stored<OutboxDispatchRecord>>();
  private version = 0;

  put(record: OutboxDispatchRecord): string {
    const etag = `"${++this.version}"`;
    this.docs.set(record.id, { doc: structuredClone(record), etag });
    return etag;
  }

  get(id: string): OutboxDispatchRecord | undefined {
    return this.docs.get(id)?.doc;
  }

  async openRecords(orderId: string): Promise<Stored<OutboxDispatchRecord>[]> {
    return [...this.docs.values()]
      .filter((s) => s.doc.orderId === orderId && s.doc.status !== 'completed')
      .sort((a, b) => a.doc.sequence - b.doc.sequence)
      .map((s) => structuredClone(s));
  }

  async replace(record: OutboxDispatchRecord, etag: string): Promise<string | undefined> {
    const current = this.docs.get(record.id);
    if (!current || current.etag !== etag) return undefined;
    return this.put(record);
  }

  async openSummaries(limit: number): Promise<OutboxSummary[]> {
    return [...this.docs.values()]
      .map((s) => s.doc)
      .filter((d) => d.status !== 'completed')
      .slice(0, limit);
  }

  async countOpen(): Promise<OutboxCounts> {
    const all = [...this.docs.values()].map((s) => s.doc.status);
    return { pending: all.filter((s) => s === 'pending').length, inProgress: all.filter((s) => s === 'in-progress').length, failed: all.filter((s) => s === 'failed').length };
  }
}
