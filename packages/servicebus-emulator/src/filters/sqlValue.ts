/**
 * Values of the Service Bus SQL dialect: `bigint` for integers (System.Int64), `number` for floating point
 * (System.Double), strings, booleans, dates, and `null` for NULL and for a property that is not there (the
 * documentation's "unknown").
 */
export type SqlValue = bigint | number | string | boolean | Date | null;

/** Three-valued logic: `null` is unknown. */
export type Tri = boolean | null;

/** Raised while evaluating (division by zero, an operator applied to the wrong types). */
export class SqlEvaluationError extends Error {
  override readonly name = 'SqlEvaluationError';
}

function isNumber(v: SqlValue): v is bigint | number {
  return typeof v === 'bigint' || typeof v === 'number';
}

/**
 * Orders two values after the documented promotions: an integer meets a double as a double; strings, booleans
 * and dates compare only with their own kind. Returns undefined when the kinds cannot be compared.
 */
export function compareValues(a: SqlValue, b: SqlValue): number | undefined {
  if (a === null || b === null) return undefined;
  if (isNumber(a) && isNumber(b)) {
    if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
    const x = Number(a);
    const y = Number(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  return undefined;
}

/** Arithmetic with integer semantics when both sides are integers (truncating division), double otherwise. */
export function arithmetic(op: '+' | '-' | '*' | '/' | '%', a: SqlValue, b: SqlValue): SqlValue {
  if (a === null || b === null) return null;
  if (op === '+' && typeof a === 'string' && typeof b === 'string') return a + b;
  if (!isNumber(a) || !isNumber(b))
    throw new SqlEvaluationError(`operator ${op} needs numbers, got ${kindOf(a)} and ${kindOf(b)}`);
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    if ((op === '/' || op === '%') && b === 0n) throw new SqlEvaluationError('division by zero');
    switch (op) {
      case '+':
        return a + b;
      case '-':
        return a - b;
      case '*':
        return a * b;
      case '/':
        return a / b;
      case '%':
        return a % b;
    }
  }
  const x = Number(a);
  const y = Number(b);
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      return x / y;
    case '%':
      return x % y;
  }
}

/** The kind of a value, for error messages. */
function kindOf(v: SqlValue): string {
  if (v === null) return 'null';
  if (v instanceof Date) return 'date';
  if (typeof v === 'bigint') return 'integer';
  if (typeof v === 'number') return 'double';
  return typeof v;
}
