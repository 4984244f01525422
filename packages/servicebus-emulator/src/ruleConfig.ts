/** A correlation filter; every field present must match (properties by exact value). */
export interface CorrelationFilter {
  readonly contentType?: string;
  readonly correlationId?: string;
  readonly label?: string;
  readonly messageId?: string;
  readonly replyTo?: string;
  readonly replyToSessionId?: string;
  readonly sessionId?: string;
  readonly to?: string;
  readonly properties: Readonly<Record<string, CorrelationValue>>;
}

/** A value a correlation filter's property must equal. */
export type CorrelationValue = string | number | boolean | Date;

/** Values a SQL filter or action may be given as `@name` parameters. */
export type SqlParameterValues = Readonly<Record<string, bigint | number | string | boolean | Date>>;

/** A rule's filter: correlation, SQL, or the constant filters the management API names. */
export type RuleFilterSpec =
  | { readonly type: 'correlation'; readonly correlation: CorrelationFilter }
  | { readonly type: 'sql'; readonly expression: string; readonly parameters: SqlParameterValues }
  | { readonly type: 'true' }
  | { readonly type: 'false' };

/** A subscription rule: a filter and an optional SQL action. */
export interface RuleConfig {
  readonly name: string;
  readonly filter: RuleFilterSpec;
  readonly action: { readonly expression: string; readonly parameters: SqlParameterValues } | undefined;
  /** Epoch ms. */
  readonly createdAt: number;
}
