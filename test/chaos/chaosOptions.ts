/** Everything that shapes a chaos run; the same options and seed give the same data and the same fault plan. */
export interface ChaosOptions {
  seed: number;
  /** Valid entries in total (spread evenly over the orders). */
  entries: number;
  orders: number;
  /** Fault window in ms: sends are spread over its first 60 %, faults over all of it; then the system settles. */
  durationMs: number;
  /** How long to wait, after the window, for everything to settle. */
  settleTimeoutMs: number;
  /** Competing function hosts (child processes). */
  hosts: number;
  /** Broker `LockDuration` of `orders` in the chaos entity file (also `ORDERS_LOCK_DURATION`), seconds. */
  lockDurationS: number;
  /** `TRANSIENT_RETRY_BUDGET` of the hosts, ms (must end 10 s before the lock). */
  retryBudgetMs: number;
  /** Session workers per host. */
  maxConcurrentSessions: number;
  /** Per completion: probability that a host kills itself between commit and settlement. */
  crashBeforeSettleP: number;
  /** Per handler call: probability of sleeping past the lock (lock renewal is off in the chaos hosts). */
  slowP: number;
  /** SIGKILLs of a random host at random moments. */
  hostKills: number;
  /** Service Bus emulator SIGKILL + restart on the same port and data. */
  serviceBusRestarts: number;
  /** Bursts of Cosmos 429s, of 503s, and lost replies after commit. */
  throttleBursts: number;
  /** Stretches of every batch answered 429 for longer than the lock duration plus the retry budget. */
  sustainedThrottles: number;
  unavailableBursts: number;
  commitThenFail: number;
  /** Relay invocations that end in a SIGKILL after the sends and before the lease checkpoint (the batch replays). */
  relayCrashes: number;
  /** Webhook outages (503 for some orders, longer than the relay's retry budget, then recovery) and orders per outage. */
  webhookOutages: number;
  webhookOutageOrders: number;
  /** Webhook outages of one order alone, and of every order at once (the webhook down), past the retry budget. */
  loneWebhookOutages: number;
  wideWebhookOutages: number;
  /** Relay leases taken from their owner and expired (another host takes the range). */
  leaseLosses: number;
  /** `OUTBOX_RETRY_BUDGET` of the hosts, ms: a webhook failing longer puts its order on hold. */
  relayRetryBudgetMs: number;
  /** Ratio of entries the generator copies into other ledgers, of ledgers it re-sends, and of ledgers re-sent under a new message id (at least one). */
  duplicateRatio: number;
  /** Ratio of entries also sent straight to `orders` (half with the splitter's message id, half with another). */
  directDuplicateRatio: number;
  /** Orders with an entryId reused with a different body (IdempotencyKeyConflict). */
  conflicts: number;
  /** Poison messages (SchemaValidationFailed on `orders` and `ledger`). */
  poison: number;
  /** Orders with a later entry sent before an earlier one (parking). */
  gaps: number;
  /** Keep the run directory (logs, emulator data) afterwards. */
  keep: boolean;
  /** Progress lines on stderr. */
  verbose: boolean;
}

/** The full run of `npm run chaos` (≥ 10,000 entries over ≥ 200 orders). */
export function defaultChaosOptions(overrides: Partial<ChaosOptions> = {}): ChaosOptions {
  const base: ChaosOptions = {
    seed: 1,
    entries: 10_000,
    orders: 200,
    // About 70 entries/s while sending: what the embedded Cosmos emulator sustains on two shared cores with the
    // growing container (its query engine scans each order's partition on every outbox pass).
    durationMs: 240_000,
    settleTimeoutMs: 300_000,
    hosts: 2,
    // Long enough that sessions of a loaded system keep their lock (renewal is off); slow handlers still lose it.
    lockDurationS: 30,
    retryBudgetMs: 5_000,
    maxConcurrentSessions: 8,
    crashBeforeSettleP: 0.0015,
    slowP: 0.0006,
    hostKills: 6,
    serviceBusRestarts: 2,
    throttleBursts: 8,
    sustainedThrottles: 2,
    unavailableBursts: 8,
    commitThenFail: 12,
    relayCrashes: 4,
    webhookOutages: 3,
    webhookOutageOrders: 4,
    loneWebhookOutages: 1,
    wideWebhookOutages: 1,
    leaseLosses: 3,
    relayRetryBudgetMs: 2_000,
    duplicateRatio: 0.03,
    directDuplicateRatio: 0.02,
    conflicts: 8,
    poison: 12,
    gaps: 20,
    keep: false,
    verbose: true,
  };
  return { ...base, ...overrides };
}

/** The small run of `npm test`: at most 2,000 entries, about a minute on two cores. */
export function smallChaosOptions(overrides: Partial<ChaosOptions> = {}): ChaosOptions {
  return defaultChaosOptions({
    seed: 20_261_108,
    entries: 1_500,
    orders: 50,
    durationMs: 35_000,
    // A hang guard: settling ends as soon as the system matches the oracle, so only a stuck run waits this long.
    settleTimeoutMs: 240_000,
    lockDurationS: 15,
    retryBudgetMs: 3_000,
    crashBeforeSettleP: 0.004,
    slowP: 0.002,
    hostKills: 2,
    serviceBusRestarts: 1,
    throttleBursts: 3,
    sustainedThrottles: 1,
    unavailableBursts: 3,
    commitThenFail: 5,
    relayCrashes: 2,
    webhookOutages: 1,
    webhookOutageOrders: 3,
    leaseLosses: 1,
    conflicts: 3,
    poison: 8,
    gaps: 6,
    verbose: false,
    ...overrides,
  });
}
