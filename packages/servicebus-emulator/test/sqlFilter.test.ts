import { describe, expect, it } from 'vitest';
import { compileSqlAction, compileSqlFilter } from '../src/filters/sqlRule.js';
import { SqlSyntaxError } from '../src/filters/parse.js';
import type { MessageView, SqlValue } from '../src/filters/sqlRule.js';

/** A message as a filter sees it: system properties by canonical name, user properties as given. */
function message(user: Record<string, SqlValue>, sys: Record<string, SqlValue> = {}): MessageView {
  return { sys: (name) => sys[name], user: new Map(Object.entries(user)) };
}

const matches = (expression: string, m: MessageView, params = {}): boolean =>
  compileSqlFilter(expression, params).matches(m);

function syntaxError(expression: string, compile: (e: string) => unknown = compileSqlFilter): SqlSyntaxError {
  try {
    compile(expression);
  } catch (err) {
    if (err instanceof SqlSyntaxError) return err;
    throw err;
  }
  throw new Error(`"${expression}" compiled, expected a syntax error`);
}

// Examples from learn.microsoft.com: "SQL filter syntax", "Set subscription filters" and "SQL rule action syntax".
describe('SQL filters: the documented examples', () => {
  it('filters on system properties, with the names in any case', () => {
    const m = message({}, { Label: 'the bus stop', MessageId: 'xxxx', CorrelationId: 'abc-123' });
    expect(matches("sys.label LIKE '%bus%'", m)).toBe(true);
    expect(matches("sys.messageid = 'xxxx'", m)).toBe(true);
    expect(matches("sys.correlationid like 'abc-%'", m)).toBe(true);
    expect(matches("sys.correlationid like 'abd-%'", m)).toBe(false);
  });

  it('filters on user properties, with or without the user scope', () => {
    const m = message({ MessageProperty: 'A', SuperHero: 'SuperMan Returns' });
    expect(matches("MessageProperty = 'A'", m)).toBe(true);
    expect(matches("user.SuperHero like 'SuperMan%'", m)).toBe(true);
    expect(matches("MessageProperty = 'B' OR MessageProperty = 'A'", m)).toBe(true);
  });

  it('quotes property names with special characters', () => {
    const m = message({
      'http://schemas.microsoft.com/xrm/2011/Claims/EntityLogicalName': 'account',
      'my property': 1n,
    });
    expect(matches('"http://schemas.microsoft.com/xrm/2011/Claims/EntityLogicalName" = \'account\'', m)).toBe(true);
    expect(matches('[my property] = 1', m)).toBe(true);
  });

  it('selects by IN, combined with system properties', () => {
    expect(matches("StoreId IN ('Store1', 'Store2', 'Store3')", message({ StoreId: 'Store2' }))).toBe(true);
    expect(matches("StoreId IN ('Store1', 'Store2', 'Store3')", message({ StoreId: 'Store4' }))).toBe(false);
    const f = "sys.To IN ('Store5','Store6','Store7') OR StoreId = 'Store8'";
    expect(matches(f, message({}, { To: 'Store6' }))).toBe(true);
    expect(matches(f, message({ StoreId: 'Store8' }))).toBe(true);
    expect(matches(f, message({ StoreId: 'Store9' }, { To: 'Store1' }))).toBe(false);
  });

  it('matches the SqlRuleAction sample: a filter with IS NULL and OR in parentheses', () => {
    const f = "sys.CorrelationId = 'email' AND sender = 'joseph' AND (importance IS NULL OR importance = 'high')";
    expect(matches(f, message({ sender: 'joseph' }, { CorrelationId: 'email' }))).toBe(true);
    expect(matches(f, message({ sender: 'joseph', importance: 'high' }, { CorrelationId: 'email' }))).toBe(true);
    expect(matches(f, message({ sender: 'joseph', importance: 'low' }, { CorrelationId: 'email' }))).toBe(false);
  });
});

describe('SQL filters: operators and the documented semantics', () => {
  it('compares numbers across integer and double, and does integer arithmetic on integers', () => {
    const m = message({ quantity: 10n, price: 2.5 });
    expect(matches('quantity = 10.0', m)).toBe(true);
    expect(matches('quantity * price = 25', m)).toBe(true);
    expect(matches('quantity / 4 = 2', m)).toBe(true);
    expect(matches('quantity / 4.0 = 2.5', m)).toBe(true);
    expect(matches('quantity % 3 = 1 AND -quantity < 0 AND (1 + 2) * 3 = 9', m)).toBe(true);
    expect(matches('quantity >= 10 AND quantity <= 10 AND quantity <> 11 AND quantity != 11', m)).toBe(true);
    expect(matches('1.5E1 > quantity', m)).toBe(true);
  });

  it('treats a missing property as unknown: neither a comparison nor its negation matches', () => {
    const m = message({ a: 1n });
    expect(matches('missing = 1', m)).toBe(false);
    expect(matches('NOT (missing = 1)', m)).toBe(false);
    expect(matches('missing <> 1', m)).toBe(false);
    expect(matches('missing = 1 OR a = 1', m)).toBe(true);
    expect(matches('missing = 1 AND a = 1', m)).toBe(false);
    expect(matches('missing IS NULL AND a IS NOT NULL', m)).toBe(true);
    expect(matches('EXISTS (a) AND NOT EXISTS (missing)', m)).toBe(true);
  });

  it('does not match values of kinds that cannot be compared, nor a division by zero', () => {
    const m = message({ s: '5', n: 5n, flag: true });
    expect(matches('s = 5', m)).toBe(false);
    expect(matches('NOT (s = 5)', m)).toBe(false);
    expect(matches('flag = TRUE AND flag <> FALSE', m)).toBe(true);
    expect(matches('n / 0 = 1', m)).toBe(false);
  });

  it('supports LIKE with % and _, NOT LIKE, and an ESCAPE character', () => {
    const m = message({ code: '50%', word: 'cat' });
    expect(matches("code LIKE '50!%' ESCAPE '!'", m)).toBe(true);
    expect(matches("code LIKE '50!%' ESCAPE '!'", message({ code: '500' }))).toBe(false);
    expect(matches("word LIKE 'c_t' AND word NOT LIKE 'd%'", m)).toBe(true);
    expect(matches("word LIKE 'C%'", m)).toBe(false);
  });

  it('supports NOT IN and parameters', () => {
    const m = message({ color: 'red', size: 3n });
    expect(matches("color NOT IN ('blue', 'green')", m)).toBe(true);
    expect(matches('size > @min AND color = @color', m, { '@min': 2, '@color': 'red' })).toBe(true);
  });

  it('refuses a bad expression with the position of the error', () => {
    expect(syntaxError("color = = 'red'")).toMatchObject({ line: 1, column: 9 });
    expect(syntaxError('a = 1 AND\n  b =')).toMatchObject({ line: 2, column: 6 });
    expect(syntaxError('sys.NoSuchProperty = 1').message).toMatch(
      /unknown system property sys\.NoSuchProperty at line 1, column 1/,
    );
    expect(syntaxError('a = nofunction()').message).toMatch(/unknown function nofunction\(\)/);
    expect(syntaxError("a LIKE 'x' ESCAPE 'ab'").message).toMatch(/ESCAPE needs exactly one character/);
    expect(syntaxError("'unterminated = 1")).toBeInstanceOf(SqlSyntaxError);
  });
});

describe('SQL rule actions', () => {
  it('sets and removes user properties in order, later statements seeing earlier ones', () => {
    const m = message({ quantity: 10n, FirstName: 'Ada', LastName: 'Lovelace', secret: 'x' });
    const edit = compileSqlAction(
      "SET ThisMessageIs = 'Even'; SET FullName = FirstName + ' ' + LastName; SET quantity = quantity / 2 REMOVE secret; SET half = quantity",
    ).apply(m);
    expect(Object.fromEntries(edit.set)).toEqual({
      ThisMessageIs: 'Even',
      FullName: 'Ada Lovelace',
      quantity: 5n,
      half: 5n,
    });
    expect([...edit.removed]).toEqual(['secret']);
  });

  it('assigns newid() a fresh identifier and a removed-then-set property is kept', () => {
    const edit = compileSqlAction('REMOVE id; SET id = newid()').apply(message({ id: 'old' }));
    expect(String(edit.set.get('id'))).toMatch(/^[0-9a-f-]{36}$/);
    expect(edit.removed.size).toBe(0);
  });

  it('refuses changing a system property the broker sets, naming it, and a bad action with its position', () => {
    expect(syntaxError('SET sys.SequenceNumber = 1', compileSqlAction).message).toMatch(/sys\.SequenceNumber/);
    expect(syntaxError('SET = 1', compileSqlAction)).toMatchObject({ line: 1, column: 5 });
  });
});
