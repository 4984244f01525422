import { describe, expect, it } from 'vitest';
import type { OrderDocument } from '../../src/core/documents/orderDocument.js';
import type { ParkedEntryRecord } from '../../src/core/documents/entryRecord.js';
import { entriesFor, makeHarness, messageFor, uniqueOrderId } from './support/fixtures.js';

/**
 * Rule 10 numbers the next resubmission of a rejected entry from "the count its `rejected` record keeps": the
 * `resubmitCount` of the message whose entry was parked, then rejected (rule 11).
 */
describe('order processor, the resubmitCount a rejected entry keeps (rules 10, 11)', () => {
  async function parkThenReject(applicationProperties: Record<string, unknown>) {
    // Prepare: sequence 3 amends t-1, which sequence 2 will not add; it arrives first, so it parks.
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    const late = e.amended(3, 't-1', 900);
    await h.send(
      messageFor(late, {
        messageId: `${late.entryId}.r2`,
        applicationProperties: { sequence: 3, type: late.type, ...applicationProperties },
      }),
    );
    const parked = h.store.documents(orderId).get(`entry:order-processor:${late.entryId}`) as
      ParkedEntryRecord | undefined;
    // Act: 2 applies, the drain finds 3 impossible and rejects it.
    const fill = await h.send(e.added(2, 't-9', 100));
    // Assess (shared)
    expect(fill.result).toMatchObject({ outcome: 'applied', rejected: 1 });
    const order = h.store.documents(orderId).get('order') as OrderDocument;
    return { parked, record: order.rejected[0] };
  }

  it("carries the message's resubmitCount onto the parked record and then the rejected index entry", async () => {
    const { parked, record } = await parkThenReject({ resubmitCount: 2 });
    expect(parked).toMatchObject({ docType: 'entry', status: 'parked', sequence: 3, resubmitCount: 2 });
    expect(record).toMatchObject({ sequence: 3, reason: 'InvalidTransition', resubmitCount: 2 });
  });

  it('reads a numeric string as the SDKs may deliver it', async () => {
    const { record } = await parkThenReject({ resubmitCount: '3' });
    expect(record?.resubmitCount).toBe(3);
  });

  it('leaves the field out when the message has none (absent = 0, as on older documents)', async () => {
    const { parked, record } = await parkThenReject({});
    expect(parked).toBeDefined();
    expect(parked && 'resubmitCount' in parked).toBe(false);
    expect(record).toMatchObject({ sequence: 3, reason: 'InvalidTransition' });
    expect(record && 'resubmitCount' in record).toBe(false);
  });
});
