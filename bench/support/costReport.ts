/** The cost section of the pipeline bench's report: what an entry uses of each meter, and what a million cost on Azure. */
import { table } from '@ledger-convoy/cli';
import { joinWindows, type CostResults, type CostWindow } from './costs.js';
import { byKind, median } from './report.js';
import type { CapacityInputs } from './capacity.js';

/**
 * List prices, USD, pay-as-you-go, East US (Azure pricing pages for Azure Cosmos DB, Service Bus and Azure
 * Functions). Free grants, Service Bus Standard's base charge (and the 13 M operations a month it includes) and
 * Cosmos DB storage are left out: the figures are the cost that grows with entries.
 */
const PRICES = {
  /** Azure Cosmos DB serverless, per million request units. */
  cosmosServerlessPerMillionRu: 0.25,
  /** Service Bus Standard, per million operations (the 13 M–100 M a month tier). */
  serviceBusStandardPerMillionOperations: 0.8,
  /** Flex Consumption, on demand: per million executions. */
  flexPerMillionExecutions: 0.4,
  /** Flex Consumption, on demand: per GB-second of instance memory while executing. */
  flexPerGbSecond: 0.000026,
} as const;

/** Flex Consumption's default instance memory (2,048 MB), in GB. */
const INSTANCE_MEMORY_GB = 2;

/** Service Bus Standard bills each 64 KB of a message as one operation. */
const OPERATION_BYTES = 64 * 1024;

/** What one entry uses of each meter. */
interface PerEntry {
  requestUnits: number;
  cosmosBytesWritten: number;
  serviceBusOperations: number;
  executions: number;
  gbSeconds: number;
}

/** The section as printed. */
export function costReport(costs: CostResults): string[] {
  const long = costs.long.windows;
  const per = costs.long.perLedger;
  const rows: [string, CostWindow][] = [
    [`short orders: ${costs.short.orders} × ${costs.short.perOrder} entries`, costs.short.window],
    [`long order: all ${costs.long.entries.toLocaleString('en')} entries`, joinWindows(long)],
    [`long order: entries 1–${per}`, long[0] as CostWindow],
    [`long order: entries ${costs.long.entries - per + 1}–${costs.long.entries}`, long[long.length - 1] as CostWindow],
  ];
  const first = perEntry(long[0] as CostWindow);
  const last = perEntry(long[long.length - 1] as CostWindow);
  return [
    'What an entry costs on Azure (estimates; every assumption below):',
    `- Prices (USD, list, pay-as-you-go, East US): Cosmos DB serverless $${PRICES.cosmosServerlessPerMillionRu} per million RU; ` +
      `Service Bus Standard $${PRICES.serviceBusStandardPerMillionOperations} per million operations (13 M–100 M a month tier); ` +
      `Functions Flex Consumption on demand $${PRICES.flexPerMillionExecutions} per million executions and $${PRICES.flexPerGbSecond} per GB-s. ` +
      'Free grants, the Service Bus base charge (with its 13 M included operations) and storage are left out.',
    "- Request units: the Cosmos DB emulator's x-ms-request-charge (packages/cosmos-emulator/README.md: Microsoft's charge-by-item-size table, " +
      'queries and change feed estimated), summed over every request from the first send until the last event was on order-events (subscription all): ' +
      "processor, outbox relay (change feed, leases, holds) and the relay's polls while waiting. Bytes written: the items written as stored.",
    `- Service Bus operations: each message sent, received and completed once (ledger, orders, and the order-events topic with one ` +
      `subscription: sent to the topic once, received and completed from the subscription once); a send and a receive count one operation per started ${OPERATION_BYTES / 1024} KB of ` +
      'the body (its JSON in UTF-8), a completion one; session accepts, lock renewals and empty receives are not counted.',
    `- Executions: the in-process host's function invocations. GB-s: the main thread's busy time (the functions, the host, the bench's ` +
      `sends and its order-events consumer) × ${INSTANCE_MEMORY_GB * 1024} MB, Flex Consumption's default instance memory.`,
    `- Workloads: short orders generated as in (a) (OrderCreated, then TransactionAdded or TransactionAmended, no OrderDeleted), all ` +
      `ledgers sent at once; the long order is OrderCreated then ${costs.long.entries - 1} TransactionAdded with 40-character ` +
      `transaction ids, sent as ledgers of ${per} one after another, each measured until its events were on order-events.`,
    table(
      [
        '',
        'entries',
        'RU/entry',
        'Cosmos bytes written/entry',
        'event bytes median',
        'event bytes max',
        'SB ops/entry',
        'executions/entry',
        'GB-s/entry',
        '$/M entries Cosmos',
        '$/M SB',
        '$/M Functions',
        '$/M total',
      ],
      rows.map(([label, w]) => {
        const p = perEntry(w);
        const dollars = costPerMillion(p);
        return [
          label,
          w.entries,
          fixed(p.requestUnits, 2),
          fixed(p.cosmosBytesWritten, 0),
          fixed(median(w.eventBytes), 0),
          Math.max(...w.eventBytes),
          fixed(p.serviceBusOperations, 2),
          fixed(p.executions, 3),
          fixed(p.gbSeconds, 4),
          fixed(dollars.cosmos, 2),
          fixed(dollars.serviceBus, 2),
          fixed(dollars.functions, 2),
          fixed(dollars.total, 2),
        ];
      }),
      100,
    ),
    ...rows.map(([label, w]) => `RU per entry by kind, ${label}: ${byKind(w.cosmos.requestUnits, w.entries)}`),
    `Long order, request units per entry, last ${per} ÷ first ${per}: ${fixed(last.requestUnits / first.requestUnits, 2)}` +
      ` (${fixed(last.requestUnits, 2)} ÷ ${fixed(first.requestUnits, 2)}); event bytes (median) ${fixed(median((long[long.length - 1] as CostWindow).eventBytes), 0)} ÷ ` +
      `${fixed(median((long[0] as CostWindow).eventBytes), 0)}.`,
  ];
}

function perEntry(w: CostWindow): PerEntry {
  const messages = [...w.ledgerBytes, ...w.entryMessageBytes, ...w.eventBytes];
  const operations = messages.reduce((n, bytes) => n + 2 * units(bytes) + 1, 0);
  const executions = Object.values(w.executions).reduce((a, b) => a + b, 0);
  return {
    requestUnits: w.cosmos.requestUnits.total / w.entries,
    cosmosBytesWritten: w.cosmos.bytesWritten.total / w.entries,
    serviceBusOperations: operations / w.entries,
    executions: executions / w.entries,
    gbSeconds: ((w.busyMs / 1000) * INSTANCE_MEMORY_GB) / w.entries,
  };
}

function costPerMillion(p: PerEntry): { cosmos: number; serviceBus: number; functions: number; total: number } {
  const cosmos = p.requestUnits * PRICES.cosmosServerlessPerMillionRu;
  const serviceBus = p.serviceBusOperations * PRICES.serviceBusStandardPerMillionOperations;
  const functions = p.executions * PRICES.flexPerMillionExecutions + p.gbSeconds * 1e6 * PRICES.flexPerGbSecond;
  return { cosmos, serviceBus, functions, total: cosmos + serviceBus + functions };
}

/** Operations a message of `bytes` counts for one send or receive: one per started 64 KB, at least one. */
function units(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / OPERATION_BYTES));
}

function fixed(value: number, digits: number): string {
  return value.toFixed(digits);
}

/**
 * The capacity model's inputs this phase measured, from its short orders: request units, Service Bus messages and
 * executions per entry. Not the app's CPU: the main thread's busy time includes its waits on a loaded machine.
 */
export function measuredCapacityInputs(costs: CostResults): Partial<CapacityInputs> {
  const w = costs.short.window;
  const messages = w.ledgerBytes.length + w.entryMessageBytes.length + w.eventBytes.length;
  const executions = Object.values(w.executions).reduce((a, b) => a + b, 0);
  return {
    requestUnitsPerEntry: w.cosmos.requestUnits.total / w.entries,
    serviceBusMessagesPerEntry: messages / w.entries,
    executionsPerEntry: executions / w.entries,
  };
}
