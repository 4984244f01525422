import { z } from 'zod';
import type { OperationKind } from './operations.js';

/** Requests a fault can target; `*` matches every document, batch, bulk, query and change feed request. */
const faultOperations = [
  'batch',
  'bulk',
  'create',
  'read',
  'replace',
  'upsert',
  'delete',
  'patch',
  'query',
  'readFeed',
  'changeFeed',
  '*',
] as const;

/**
 * What a fault can target besides whole requests: `bulkOperation` is one operation inside a bulk request, which
 * then reports the fault's status in its own result (a 429 with its retry hint, say) while the others run.
 */
const faultTargets = [...faultOperations, 'bulkOperation'] as const;

/** A request kind or `bulkOperation`. */
type FaultTarget = OperationKind | 'bulkOperation';

/**
 * A fault rule. Off by default: nothing is injected until a rule is added through
 * {@link FaultInjector.add} or `POST /_emulator/faults`.
 */
const faultRuleSchema = z.union([
  z.object({
    /** Fail before doing anything: answer `status` instead. */
    mode: z.literal('error').default('error'),
    operation: z.enum(faultTargets),
    /** Status to answer. 429 carries `x-ms-retry-after-ms`. */
    status: z.union([z.literal(408), z.literal(429), z.literal(449), z.literal(500), z.literal(503)]),
    /** How many matching requests fail. @default 1 */
    count: z.number().int().positive().default(1),
    /** Retry hint for 429. @default 100 */
    retryAfterMs: z.number().int().nonnegative().default(100),
  }),
  z.object({
    /** Apply the operation, then fail the reply so the client cannot know the outcome. */
    mode: z.literal('commit-then-fail'),
    operation: z.enum(faultOperations),
    /** `destroy` resets the connection; `503` answers Service Unavailable. @default 'destroy' */
    reply: z.enum(['destroy', '503']).default('destroy'),
    /** @default 1 */
    count: z.number().int().positive().default(1),
  }),
]);

/** Input accepted by {@link FaultInjector.add} (defaults filled in by the schema). */
export type FaultRuleInput = z.input<typeof faultRuleSchema>;
/** A validated fault rule. */
export type FaultRule = z.output<typeof faultRuleSchema>;

/** Programmatic handle on the fault table (also served over `/_emulator/faults`). */
export class FaultInjector {
  private rules: { rule: FaultRule; remaining: number }[] = [];

  /** Adds a rule. @throws ZodError for an invalid rule. */
  add(input: FaultRuleInput): FaultRule {
    const rule = faultRuleSchema.parse(input);
    this.rules.push({ rule, remaining: rule.count });
    return rule;
  }

  /** Removes one rule, as {@link add} returned it (a fault that lasts a while rather than a number of requests). */
  remove(rule: FaultRule): void {
    this.rules = this.rules.filter((r) => r.rule !== rule);
  }

  /** Removes every rule. */
  clear(): void {
    this.rules = [];
  }

  /** Active rules with the number of hits left. */
  list(): (FaultRule & { remaining: number })[] {
    return this.rules.map((r) => ({ ...r.rule, remaining: r.remaining }));
  }

  /** Consumes and returns the first rule matching `operation`, if any (`*` matches requests only). @internal */
  take(operation: FaultTarget): FaultRule | undefined {
    const index = this.rules.findIndex(
      (r) =>
        r.rule.operation === operation ||
        (r.rule.operation === '*' && (faultOperations as readonly string[]).includes(operation)),
    );
    const entry = this.rules[index];
    if (entry === undefined) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.rules.splice(index, 1);
    return entry.rule;
  }
}
