import { describe, expect, it } from 'vitest';
import { parseSql } from '../src/query/cosmosdbQuery.js';
import type { LibraryContinuation } from '../src/query/cosmosdbQuery.js';
import { generatedCode, toExecutable } from '../src/query/executable.js';

/** Documents with missing, mistyped and nested values, so every branch of the generated code runs. */
const DOCS = Array.from({ length: 60 }, (_, i) => ({
  id: `d-${i}`,
  _rid: `rid-${String((i * 37) % 60).padStart(3, '0')}`,
  orderId: `o-${i % 4}`,
  ...(i % 7 !== 0 && { docType: i % 3 === 0 ? 'outbox' : 'inbox' }),
  status: i % 5 === 0 ? null : ['pending', 'done', 'failed'][i % 3],
  n: i % 9 === 0 ? String(i) : i,
  tags: i % 4 === 0 ? [] : [{ name: `t${i % 3}` }, { name: 'all' }],
  nested: { level: i % 2 },
}));

const QUERIES: { query: string; parameters?: { name: string; value: unknown }[] }[] = [
  { query: 'SELECT * FROM c' },
  { query: "SELECT * FROM c WHERE c.docType = 'outbox' AND c.status IN ('pending', 'failed')" },
  { query: 'SELECT c.id, c.n FROM c WHERE c.n > @min ORDER BY c.n DESC', parameters: [{ name: '@min', value: 10 }] },
  { query: 'SELECT TOP 5 VALUE c.id FROM root c ORDER BY c.orderId, c.id' },
  { query: 'SELECT VALUE COUNT(1) FROM c WHERE c.status = null' },
  { query: 'SELECT VALUE SUM(c.n) FROM c WHERE IS_NUMBER(c.n)' },
  { query: 'SELECT c.id, t.name FROM c JOIN t IN c.tags WHERE t.name = "all"' },
  { query: 'SELECT VALUE c.id FROM c WHERE EXISTS (SELECT VALUE t FROM t IN c.tags WHERE t.name = "t1")' },
  { query: 'SELECT c.id, ARRAY(SELECT VALUE t.name FROM t IN c.tags) AS names FROM c WHERE c.nested.level = 1' },
  { query: 'SELECT VALUE x FROM c.nested x' },
];

/** The value or the error message, so failures are compared too. */
function outcome<T>(run: () => T): T | { error: string } {
  try {
    return run();
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe('generated query code', () => {
  it('builds the FROM rows by pushing instead of copying the accumulator', () => {
    const code = generatedCode(parseSql("SELECT * FROM c WHERE c.docType = 'outbox'"));
    expect(code).toContain('$.push(');
    expect(code).not.toMatch(/\[\.\.\.\$, \{/);
  });

  it.each(QUERIES)('returns exactly what the library returns, page by page: $query', ({ query, parameters }) => {
    const executable = toExecutable(parseSql(query));
    const reference = parseSql(query);
    let continuation: LibraryContinuation | undefined;
    let pages = 0;
    do {
      const ours = outcome(() => executable.run(DOCS, { parameters, maxItemCount: 7, continuation }));
      const theirs = outcome(() => reference.exec(DOCS, { parameters, maxItemCount: 7, continuation }));
      expect(ours).toEqual(theirs);
      continuation = 'continuation' in ours ? (ours.continuation ?? undefined) : undefined;
      pages += 1;
    } while (continuation !== undefined && pages < 20);
    expect(outcome(() => executable.run(DOCS, { parameters }))).toEqual(
      outcome(() => reference.exec(DOCS, { parameters })),
    );
  });
});
