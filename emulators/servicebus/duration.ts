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
