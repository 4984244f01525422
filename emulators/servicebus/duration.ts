/**
 * ISO 8601 durations as Config.json writes them (`PT1M`, `P14D`, `P10675199DT2H48M5.4775807S`).
 * Years and months are not accepted: their length is ambiguous and the official format never uses them.
 */
const DURATION = /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/** Parses an ISO 8601 duration into milliseconds; `undefined` when the text is not one. */
export function parseDurationMs(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  if (!m || text.trim() === 'P' || text.trim().endsWith('T')) return undefined;
  const [, w, d, h, min, s] = m;
  const n = (v: string | undefined): number => (v === undefined ? 0 : Number(v));
  return Math.round(((((n(w) * 7 + n(d)) * 24 + n(h)) * 60 + n(min)) * 60 + n(s)) * 1000);
}

/** Azure's "never" (.NET `TimeSpan.MaxValue`), which the management API writes for an unbounded duration. */
export const MAX_DURATION = 'P10675199DT2H48M5.4775807S';
const MAX_DURATION_MS = parseDurationMs(MAX_DURATION) as number;

/** True for a duration Azure means as unbounded (`TimeSpan.MaxValue`, or anything that long). */
export function isUnbounded(ms: number): boolean {
  return !Number.isFinite(ms) || ms >= MAX_DURATION_MS;
}

/** Milliseconds as an ISO 8601 duration (`PT1M`, `P14DT12H`); unbounded as {@link MAX_DURATION}. */
export function formatDurationMs(ms: number): string {
  if (isUnbounded(ms)) return MAX_DURATION;
  const days = Math.floor(ms / 86_400_000);
  let rest = ms - days * 86_400_000;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  const seconds = (rest - minutes * 60_000) / 1000;
  const time = `${hours ? `${hours}H` : ''}${minutes ? `${minutes}M` : ''}${seconds ? `${seconds}S` : ''}`;
  if (!days) return `PT${time || '0S'}`;
  return `P${days}D${time ? `T${time}` : ''}`;
}
