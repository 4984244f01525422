import { metrics as otelMetrics } from '@opentelemetry/api';
import { CosmosClient, type Container } from '@azure/cosmos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start as startCosmos, type CosmosEmulator } from '@ledger-convoy/cosmos-emulator';
import { ConvoyMetrics } from '../../src/adapters/metrics.js';
import { CosmosOrderStore } from '../../src/adapters/cosmosOrderStore.js';
import { uid } from '../integration/support/ledgers.js';
import { runGapMonitor } from '../../src/core/index.js';
import type { Telemetry } from '../../src/core/ports/telemetry.js';
import { inMemoryMetrics, valueOf } from './support.js';
import { RecordingTelemetry } from '../support/fakes/index.js';

let cosmos: CosmosEmulator;
let client: CosmosClient;
let container: Container;

beforeAll(async () => {
  cosmos = await startCosmos({ port: 0 });
  client = new CosmosClient({
    endpoint: cosmos.endpoint,
    key: cosmos.key,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  const { database } = await client.databases.createIfNotExists({ id: 'convoy' });
  ({ container } = await database.containers.createIfNotExists({
    id: 'orders',
    partitionKey: { paths: ['/orderId'] },
    defaultTtl: -1,
  }));
});

afterAll(async () => {
  client?.dispose();
  await cosmos?.close();
});

const t0 = Date.parse('2025-06-01T12:00:00.000Z');
const minutes = (n: number) => n * 60_000;

/** The parked entry's record behind an order document's parked index entry, as the processor writes it. */
function parkedDoc(orderId: string, p: { sequence: number; minutesAgo: number }) {
  const entryId = `${orderId}-${p.sequence}`;
  return {
    id: `entry:order-processor:${entryId}`,
    docType: 'entry',
    status: 'parked',
    orderId,
    sequence: p.sequence,
    entryId,
    requestHash: 'h',
    entry: {
      entryId,
      orderId,
      sequence: p.sequence,
      type: 'TransactionAdded',
      data: { transactionId: `t-${p.sequence}`, amount: 1 },
    },
    parkedAt: new Date(t0 - minutes(p.minutesAgo)).toISOString(),
  };
}

/** An order document as far as the monitor reads it: position, parked index, rejected list, status. */
function orderDoc(
  orderId: string,
  lastSequence: number,
  parked: { sequence: number; minutesAgo: number }[],
  extra: Record<string, unknown> = {},
) {
  return {
    id: 'order',
    docType: 'order',
    orderId,
    lastSequence,
    state: { status: 'open', customerId: 'c', currency: 'EUR', transactionCount: 0, total: 0 },
    parked: parked.map((p) => ({
      sequence: p.sequence,
      entryId: `${orderId}-${p.sequence}`,
      requestHash: 'h',
      parkedAt: new Date(t0 - minutes(p.minutesAgo)).toISOString(),
    })),
    rejected: [],
    updatedAt: new Date(t0).toISOString(),
    ...extra,
  };
}

describe('gap monitor on the Cosmos DB emulator', () => {
  it('raises GapTooOld once for a gap older than GAP_ALERT_AGE, marks its parked entry, reports the parked gauges and drains due orders', async () => {
    // Prepare: `old` waits for 2 with 3 and 4 parked (oldest 16 min); `young` waits 5 min; `due` has its next
    // sequence parked (a drain stopped half-way); `owed` owes a ParkedEntryRejected alert; `quiet` has nothing.
    const [old, young, due, owed, quiet] = ['old', 'young', 'due', 'owed', 'quiet'].map(uid) as [
      string,
      string,
      string,
      string,
      string,
    ];
    await container.items.create(
      orderDoc(old, 1, [
        { sequence: 3, minutesAgo: 16 },
        { sequence: 4, minutesAgo: 2 },
      ]),
    );
    await container.items.create(parkedDoc(old, { sequence: 3, minutesAgo: 16 }));
    await container.items.create(orderDoc(young, 4, [{ sequence: 6, minutesAgo: 5 }]));
    await container.items.create(orderDoc(due, 2, [{ sequence: 3, minutesAgo: 1 }]));
    await container.items.create(
      orderDoc(owed, 2, [], {
        rejected: [{ sequence: 3, entryId: `${owed}-3`, reason: 'InvalidTransition', alerted: false }],
      }),
    );
    await container.items.create(
      orderDoc(quiet, 3, [], {
        rejected: [{ sequence: 4, entryId: `${quiet}-4`, reason: 'InvalidTransition', alerted: true }],
      }),
    );
    const otel = inMemoryMetrics();
    otelMetrics.setGlobalMeterProvider(otel.provider);
    const metrics = new ConvoyMetrics();
    const drained: string[] = [];
    const run = (nowMs: number, telemetry = new RecordingTelemetry()) =>
      runGapMonitor({
        store: new CosmosOrderStore(container),
        telemetry: telemetry as unknown as Telemetry,
        gapAlertAgeMs: minutes(15),
        gapAlertRepeatMs: minutes(60),
        consumerName: 'order-processor',
        metrics,
        clock: { now: () => nowMs },
        drain: async (orderId) => {
          drained.push(orderId);
          if (orderId === owed) throw new Error('Cosmos DB read failed (status 503)');
          return { drained: orderId === due ? 1 : 0 };
        },
      }).then((report) => ({ report, telemetry }));
    // Act
    const before = await run(t0 - minutes(2));
    drained.length = 0;
    const after = await run(t0);
    const points = await otel.collect();
    const drainedAtT0 = [...drained];
    const { resource: marked } = await container
      .item(`entry:order-processor:${old}-3`, old)
      .read<{ gapAlert?: unknown }>();
    const minuteLater = await run(t0 + minutes(1));
    // Assess
    expect(before.telemetry.alerts).toEqual([]);
    expect(after.telemetry.alerts).toEqual([
      {
        name: 'GapTooOld',
        fields: { orderId: old, entryId: `${old}-3`, sequence: 3, missingSequence: 2, ageMs: minutes(16), parked: 2 },
      },
    ]);
    expect(after.report).toMatchObject({ orders: 4, parkedEntries: 4, oldestGapAgeMs: minutes(16) });
    expect(marked?.gapAlert).toEqual({ alertedAt: new Date(t0).toISOString(), missingSequence: 2 });
    expect(minuteLater.report.stale).toHaveLength(1);
    expect(minuteLater.telemetry.alerts).toEqual([]);
    expect([...drainedAtT0].sort()).toEqual([due, owed].sort());
    expect(after.telemetry.logs.find((l) => l.message === 'gap monitor drain failed')?.fields).toMatchObject({
      orderId: owed,
    });
    expect(valueOf(points, 'convoy.parked.entries')).toBe(4);
    expect(valueOf(points, 'convoy.gap.oldest_age')).toBe(16 * 60);
    otelMetrics.disable();
    await otel.provider.shutdown();
  });
});
