/**
 * What one deployment sustains, and what it costs: a model (docs/capacity.md) from the bench's own figures per entry
 * and the published limits and list prices of each service. Pure: `bench:pipeline` prints {@link capacityTable} with
 * the figures it measured, docs/capacity.md shows it with {@link DOCUMENTED_INPUTS}, and test/bench/capacity.test.ts
 * keeps the two in step.
 */

/** The bench's figures per applied entry and at Azure's latency. */
export interface CapacityInputs {
  /** Request units per applied entry, everything from the first send until the event is out (cost phase, short orders). */
  requestUnitsPerEntry: number;
  /** Service Bus messages per entry: its `orders` message, its event, its share of a ledger message. */
  serviceBusMessagesPerEntry: number;
  /** Function executions per entry (splitter, processor, relay). */
  executionsPerEntry: number;
  /** The app's CPU per entry on its thread, in ms. */
  appCpuMsPerEntry: number;
  /** Entries/s one session slot sustains at Azure's in-region latency (`bench:pipeline --azure-latency`). */
  entriesPerSecondPerSlot: number;
  /** Entries/s of one order on its own at Azure's in-region latency: an order is one session, applied in sequence. */
  oneOrderEntriesPerSecond: number;
}

/**
 * A deployment: the template's parameters (infra/main.bicep) that bound its throughput.
 * @internal exported for its test
 */
export interface Deployment {
  name: string;
  /** `cosmosCapacityMode`, and `cosmosAutoscaleMaxThroughput` when Provisioned. */
  cosmos: { mode: 'Serverless' } | { mode: 'Provisioned'; autoscaleMaxRuPerSecond: number };
  /** `serviceBusSku`; Premium with its messaging units. */
  serviceBus: { sku: 'Standard' } | { sku: 'Premium'; messagingUnits: number };
  maximumInstanceCount: number;
  maxConcurrentSessions: number;
}

/**
 * Published limits. Cosmos DB: a serverless container serves at most 5,000 RU/s, one logical partition at most
 * 10,000 RU/s (Azure Cosmos DB service quotas). Service Bus Standard throttles a namespace at 1,000 credits a second,
 * a send or receive of a message one credit (Service Bus throttling, "Standard tier"); Premium has no credit limit,
 * and one messaging unit sent and received ≈ 4,400 messages/s in Microsoft's own benchmark
 * (Azure-Samples/service-bus-dotnet-messaging-performance, 1 MU, one queue, batched and prefetched: an upper bound).
 */
const LIMITS = {
  serverlessRuPerSecond: 5_000,
  logicalPartitionRuPerSecond: 10_000,
  standardCreditsPerSecond: 1_000,
  premiumMessagesPerSecondPerUnit: 4_400,
} as const;

/**
 * List prices, USD, pay-as-you-go, East US (Azure pricing pages), as `bench:pipeline` prints them. Free grants left out.
 */
const PRICES = {
  cosmosServerlessPerMillionRu: 0.25,
  /** Autoscale, single-region writes: per 100 RU/s of the hour's highest scale, per hour. */
  cosmosAutoscalePer100RuHour: 0.012,
  serviceBusStandardBasePerHour: 0.0135,
  serviceBusStandardPerMillionOperations: 0.8,
  serviceBusPremiumPerUnitHour: 0.928,
  flexPerMillionExecutions: 0.4,
  flexPerGbSecond: 0.000026,
} as const;

/** Flex Consumption's default instance memory (2,048 MB), in GB. */
const INSTANCE_MEMORY_GB = 2;
const HOURS_PER_MONTH = 730;
const SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600;
/** Billed operations per message: send, receive, complete (one subscription read on `order-events`). */
const OPERATIONS_PER_MESSAGE = 3;
/** Throttling credits per message on Standard: its send and its receive. */
const CREDITS_PER_MESSAGE = 2;

/** One limit and the entries/s it allows. */
interface Limit {
  name: string;
  entriesPerSecond: number;
}

/** What a deployment sustains. */
interface Capacity {
  limits: Limit[];
  /** The limit that binds first. */
  binding: Limit;
  /** Entries/s of one order (one session), whatever the deployment. */
  perOrder: number;
}

/**
 * The limits of a deployment, each as entries/s, and the one that binds first.
 * @internal exported for its test
 */
export function capacity(inputs: CapacityInputs, d: Deployment): Capacity {
  const ruPerSecond = d.cosmos.mode === 'Serverless' ? LIMITS.serverlessRuPerSecond : d.cosmos.autoscaleMaxRuPerSecond;
  const serviceBus =
    d.serviceBus.sku === 'Standard'
      ? LIMITS.standardCreditsPerSecond / (CREDITS_PER_MESSAGE * inputs.serviceBusMessagesPerEntry)
      : (d.serviceBus.messagingUnits * LIMITS.premiumMessagesPerSecondPerUnit) / inputs.serviceBusMessagesPerEntry;
  const limits: Limit[] = [
    {
      name: `Cosmos DB ${ruPerSecond.toLocaleString('en')} RU/s`,
      entriesPerSecond: ruPerSecond / inputs.requestUnitsPerEntry,
    },
    {
      name:
        d.serviceBus.sku === 'Standard'
          ? 'Service Bus Standard credits'
          : `Service Bus Premium ${d.serviceBus.messagingUnits} MU`,
      entriesPerSecond: serviceBus,
    },
    {
      name: `session slots (${d.maximumInstanceCount} × ${d.maxConcurrentSessions})`,
      entriesPerSecond: d.maximumInstanceCount * d.maxConcurrentSessions * inputs.entriesPerSecondPerSlot,
    },
    {
      name: `app CPU (${d.maximumInstanceCount} instances)`,
      entriesPerSecond: d.maximumInstanceCount * perInstanceCpu(inputs),
    },
  ];
  const binding = limits.reduce((a, b) => (b.entriesPerSecond < a.entriesPerSecond ? b : a));
  const partition = LIMITS.logicalPartitionRuPerSecond / inputs.requestUnitsPerEntry;
  return { limits, binding, perOrder: Math.min(inputs.oneOrderEntriesPerSecond, partition) };
}

/**
 * Monthly cost, USD, at a steady `entriesPerSecond`; `undefined` beyond what the deployment sustains.
 * @internal exported for its test
 */
export function monthlyCost(inputs: CapacityInputs, d: Deployment, entriesPerSecond: number): number | undefined {
  if (entriesPerSecond > capacity(inputs, d).binding.entriesPerSecond) return undefined;
  const entries = entriesPerSecond * SECONDS_PER_MONTH;
  const ruPerSecond = entriesPerSecond * inputs.requestUnitsPerEntry;
  const cosmos =
    d.cosmos.mode === 'Serverless'
      ? (entries * inputs.requestUnitsPerEntry * PRICES.cosmosServerlessPerMillionRu) / 1e6
      : // Autoscale bills the hour's highest scale, at least a tenth of the maximum.
        (Math.max(ruPerSecond, d.cosmos.autoscaleMaxRuPerSecond / 10) / 100) *
        PRICES.cosmosAutoscalePer100RuHour *
        HOURS_PER_MONTH;
  const serviceBus =
    d.serviceBus.sku === 'Standard'
      ? PRICES.serviceBusStandardBasePerHour * HOURS_PER_MONTH +
        (entries *
          inputs.serviceBusMessagesPerEntry *
          OPERATIONS_PER_MESSAGE *
          PRICES.serviceBusStandardPerMillionOperations) /
          1e6
      : d.serviceBus.messagingUnits * PRICES.serviceBusPremiumPerUnitHour * HOURS_PER_MONTH;
  // An instance is billed its memory while it executes; under steady load, as many instances as the load needs.
  const perInstance = Math.min(perInstanceCpu(inputs), d.maxConcurrentSessions * inputs.entriesPerSecondPerSlot);
  const functions =
    (entries * inputs.executionsPerEntry * PRICES.flexPerMillionExecutions) / 1e6 +
    (entriesPerSecond / perInstance) * INSTANCE_MEMORY_GB * PRICES.flexPerGbSecond * SECONDS_PER_MONTH;
  return cosmos + serviceBus + functions;
}

/** The rates docs/capacity.md and the bench price. */
const PRICED_RATES = [10, 100, 1_000] as const;

/**
 * The template's default deployment and the bigger settings it offers, from its defaults.
 * @internal exported for its test
 */
export function deployments(defaults: { maximumInstanceCount: number; maxConcurrentSessions: number }): Deployment[] {
  const base = {
    maximumInstanceCount: defaults.maximumInstanceCount,
    maxConcurrentSessions: defaults.maxConcurrentSessions,
  };
  return [
    { name: 'default', cosmos: { mode: 'Serverless' }, serviceBus: { sku: 'Standard' }, ...base },
    {
      name: 'autoscale 10k',
      cosmos: { mode: 'Provisioned', autoscaleMaxRuPerSecond: 10_000 },
      serviceBus: { sku: 'Standard' },
      ...base,
    },
    {
      name: 'autoscale 20k, Premium 1 MU',
      cosmos: { mode: 'Provisioned', autoscaleMaxRuPerSecond: 20_000 },
      serviceBus: { sku: 'Premium', messagingUnits: 1 },
      ...base,
    },
    {
      name: 'autoscale 50k, Premium 2 MU, 100 instances',
      cosmos: { mode: 'Provisioned', autoscaleMaxRuPerSecond: 50_000 },
      serviceBus: { sku: 'Premium', messagingUnits: 2 },
      maximumInstanceCount: 100,
      maxConcurrentSessions: defaults.maxConcurrentSessions,
    },
  ];
}

/**
 * The table, as Markdown lines: each deployment's limits, the one that binds, and the monthly cost at each rate.
 * @internal exported for docs/capacity.md's test
 */
export function capacityTable(inputs: CapacityInputs, ds: readonly Deployment[]): string[] {
  const rows = ds.map((d) => {
    const c = capacity(inputs, d);
    const limit = (i: number) => whole((c.limits[i] as Limit).entriesPerSecond);
    const cost = PRICED_RATES.map((r) => {
      const usd = monthlyCost(inputs, d, r);
      return usd === undefined ? 'beyond' : `$${whole(usd)}`;
    });
    return [
      d.name,
      limit(0),
      limit(1),
      limit(2),
      limit(3),
      `**${whole(c.binding.entriesPerSecond)}** (${c.binding.name})`,
      whole(c.perOrder),
      ...cost,
    ];
  });
  const head = [
    'deployment',
    'Cosmos DB',
    'Service Bus',
    'session slots',
    'app CPU',
    'sustains, entries/s (binds first)',
    'one order',
    ...PRICED_RATES.map((r) => `$/month at ${r}/s`),
  ];
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
}

/**
 * The inputs docs/capacity.md was written from: the figures of the last bench runs it names.
 * @internal exported for docs/capacity.md's test
 */
export const DOCUMENTED_INPUTS: CapacityInputs = {
  requestUnitsPerEntry: 18.5,
  serviceBusMessagesPerEntry: 2.01,
  executionsPerEntry: 1.25,
  appCpuMsPerEntry: 0.83,
  entriesPerSecondPerSlot: 6.26,
  oneOrderEntriesPerSecond: 21.1,
};

function perInstanceCpu(inputs: CapacityInputs): number {
  return 1000 / inputs.appCpuMsPerEntry;
}

function whole(n: number): string {
  return Math.round(n).toLocaleString('en');
}

/**
 * The section `bench:pipeline` prints: the table from this run's figures where it measured them and
 * {@link DOCUMENTED_INPUTS} elsewhere, each input said with where it came from.
 */
export function capacitySection(
  measured: Partial<CapacityInputs>,
  defaults: { maximumInstanceCount: number; maxConcurrentSessions: number },
): string[] {
  const inputs: CapacityInputs = { ...DOCUMENTED_INPUTS, ...measured };
  const said = (Object.keys(inputs) as (keyof CapacityInputs)[]).map(
    (k) => `${k} ${inputs[k].toFixed(2)} (${k in measured ? 'this run' : 'docs/capacity.md'})`,
  );
  return [
    `What a deployment sustains (docs/capacity.md; a model until bench:azure has run): infra/main.bicep's defaults ` +
      `maximumInstanceCount ${defaults.maximumInstanceCount}, maxConcurrentSessions ${defaults.maxConcurrentSessions}; inputs: ${said.join(', ')}.`,
    ...capacityTable(inputs, deployments(defaults)),
  ];
}
