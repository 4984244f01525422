/**
 * The index just past a string literal (`'…'` or `"…"`, backslash escapes) or a `--` comment that starts at `i` in a
 * query's text, or `i` itself when none starts there: what the clause and LIKE scanners skip before looking at words.
 */
export function skipStringOrComment(sql: string, i: number): number {
  const ch = sql[i];
  if (ch === "'" || ch === '"') {
    let j = i + 1;
    while (j < sql.length && sql[j] !== ch) j += sql[j] === '\\' ? 2 : 1;
    return j + 1;
  }
  if (ch === '-' && sql[i + 1] === '-') {
    let j = i;
    while (j < sql.length && sql[j] !== '\n') j += 1;
    return j;
  }
  return i;
}
