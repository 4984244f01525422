const ISO_DURATION =
  /^P(?!$)(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?=\d)(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

const MS = { week: 604_800_000, day: 86_400_000, hour: 3_600_000, minute: 60_000, second: 1_000 } as const;

/**
 * Parses an ISO 8601 duration (`PT1M`, `P14D`, `P1DT2H30M`, `PT0.5S`, `P2W`) into milliseconds, as Service Bus
 * entity properties spell them. Years and months are refused: their length varies. Returns `undefined` when
 * the text is not such a duration.
 */
export function parseIsoDuration(text: string): number | undefined {
  const match = ISO_DURATION.exec(text.trim().toUpperCase());
  if (!match) return undefined;
  const [, w, d, h, m, s] = match;
  const part = (value: string | undefined, unit: number) => (value === undefined ? 0 : Number(value) * unit);
  return Math.round(part(w, MS.week) + part(d, MS.day) + part(h, MS.hour) + part(m, MS.minute) + part(s, MS.second));
}

/** Formats milliseconds as an ISO 8601 duration with days, hours, minutes and seconds (`P21DT10M`). */
export function formatIsoDuration(ms: number): string {
  let rest = Math.max(0, Math.round(ms));
  const days = Math.floor(rest / MS.day);
  rest -= days * MS.day;
  const hours = Math.floor(rest / MS.hour);
  rest -= hours * MS.hour;
  const minutes = Math.floor(rest / MS.minute);
  rest -= minutes * MS.minute;
  const seconds = rest / MS.second;
  const time = `${hours ? `${hours}H` : ''}${minutes ? `${minutes}M` : ''}${seconds ? `${seconds}S` : ''}`;
  if (!days && !time) return 'PT0S';
  return `P${days ? `${days}D` : ''}${time ? `T${time}` : ''}`;
}
