import type { CorrelationFilter, RuleConfig } from '../ruleConfig.js';
import { SqlEvaluationError, compileSqlAction, compileSqlFilter } from '../filters/sqlRule.js';
import type { MessageView, PropertyEdit, SqlAction } from '../filters/sqlRule.js';
import { viewOf, withEdit } from './sqlView.js';
import type { FilterFields, ParsedMessage } from './wireMessage.js';

/** What a subscription's rules make of a message. */
export interface RouteResult {
  readonly copies: ParsedMessage[];
  /** The first rule evaluation error, if any. */
  readonly failure: string | undefined;
}

/** A rule ready to run: its definition and its compiled filter and action. */
interface CompiledRule {
  readonly config: RuleConfig;
  matches(f: FilterFields, view: () => MessageView): boolean;
  readonly action: SqlAction | undefined;
}

/** Correlation filter semantics: every field the filter sets must equal the message's value. */
function matchesCorrelation(c: CorrelationFilter, f: FilterFields): boolean {
  const pairs: [string | undefined, string | undefined][] = [
    [c.contentType, f.contentType],
    [c.correlationId, f.correlationId],
    [c.label, f.label],
    [c.messageId, f.messageId],
    [c.replyTo, f.replyTo],
    [c.replyToSessionId, f.replyToSessionId],
    [c.sessionId, f.sessionId],
    [c.to, f.to],
  ];
  if (pairs.some(([want, got]) => want !== undefined && want !== got)) return false;
  return Object.entries(c.properties).every(([k, v]) => {
    const got = f.appProps[k];
    return v instanceof Date ? got instanceof Date && got.getTime() === v.getTime() : got === v;
  });
}

function compile(r: RuleConfig): CompiledRule {
  const action = r.action ? compileSqlAction(r.action.expression, r.action.parameters) : undefined;
  const f = r.filter;
  switch (f.type) {
    case 'true':
      return { config: r, action, matches: () => true };
    case 'false':
      return { config: r, action, matches: () => false };
    case 'correlation':
      return { config: r, action, matches: (fields) => matchesCorrelation(f.correlation, fields) };
    case 'sql': {
      const sql = compileSqlFilter(f.expression, f.parameters);
      return { config: r, action, matches: (_fields, view) => sql.evaluate(view()) };
    }
  }
}

/** Azure marks each copy an action made with the rule's name, in the `RuleName` application property. */
function withRuleName(edit: PropertyEdit, name: string): PropertyEdit {
  const set = new Map(edit.set);
  set.set('RuleName', name);
  const removed = new Set(edit.removed);
  removed.delete('RuleName');
  return { set, removed, system: edit.system };
}

/**
 * A subscription's rules. As on Azure: the rules without an action together give at most one copy of a
 * message, and every matching rule with an action gives its own copy with the action applied.
 */
export class RuleSet {
  private compiled: CompiledRule[];

  constructor(rules: readonly RuleConfig[]) {
    this.compiled = rules.map(compile);
  }

  /** The rules, in the order they were added. */
  get rules(): RuleConfig[] {
    return this.compiled.map((c) => c.config);
  }

  /** Adds or replaces a rule (by name, case-insensitive); throws if its SQL does not compile. */
  put(rule: RuleConfig): void {
    const next = compile(rule);
    const i = this.compiled.findIndex((c) => c.config.name.toLowerCase() === rule.name.toLowerCase());
    if (i >= 0) this.compiled[i] = next;
    else this.compiled.push(next);
  }

  /** Removes a rule; false when there was none by that name. */
  remove(name: string): boolean {
    const before = this.compiled.length;
    this.compiled = this.compiled.filter((c) => c.config.name.toLowerCase() !== name.toLowerCase());
    return this.compiled.length !== before;
  }

  /**
   * The copies of `p` this subscription takes (none when no rule matches), and the first evaluation error of a
   * filter or action (a division by zero, operands that cannot be compared), which matches nothing.
   */
  route(p: ParsedMessage, now: number): RouteResult {
    let view: MessageView | undefined;
    const lazyView = (): MessageView => (view ??= viewOf(p, now));
    const copies: ParsedMessage[] = [];
    let plain = false;
    let failure: string | undefined;
    for (const rule of this.compiled) {
      try {
        if (!rule.matches(p.filterFields, lazyView)) continue;
        if (rule.action === undefined) plain = true;
        else copies.push(withEdit(p, withRuleName(rule.action.apply(lazyView()), rule.config.name)));
      } catch (err) {
        if (!(err instanceof SqlEvaluationError)) throw err;
        failure ??= `Rule '${rule.config.name}': ${err.message}`;
      }
    }
    return { copies: plain ? [p, ...copies] : copies, failure };
  }
}
