import { Duration } from 'luxon';

/**
 * ISO 8601 durations as Config.json writes them (`PT1M`, `P14D`, `P10675199DT2H48M5.4775807S`), read and written with
 * luxon. Years and months are not accepted: their length is ambiguous and the official format never uses them; nor is
 * a duration naming no unit (`P`, `PT`, `P1DT`).
 */

/** Parses an ISO 8601 duration into milliseconds; `undefined` when the text is not one. */
export function parseDurationMs(text: string): number | undefined {
  const spelled = text.trim();
  const duration = Duration.fromISO(spelled);
  if (!duration.isValid || spelled.endsWith('T')) return undefined;
  const units = duration.toObject();
  if (
    Object.keys(units).length === 0 ||
    units.years !== undefined ||
    units.months !== undefined ||
    duration.as('milliseconds') < 0
  )
    return undefined;
  return Math.round(duration.as('milliseconds'));
}

/** Azure's "never" (.NET `TimeSpan.MaxValue`), which the management API writes for an unbounded duration. @internal */
export const MAX_DURATION = 'P10675199DT2H48M5.4775807S';
const MAX_DURATION_MS = parseDurationMs(MAX_DURATION) as number;

/** True for a duration Azure means as unbounded (`TimeSpan.MaxValue`, or anything that long). */
export function isUnbounded(ms: number): boolean {
  return !Number.isFinite(ms) || ms >= MAX_DURATION_MS;
}

/** Milliseconds as an ISO 8601 duration (`PT1M`, `P14DT12H`); unbounded as {@link MAX_DURATION}. */
export function formatDurationMs(ms: number): string {
  if (isUnbounded(ms)) return MAX_DURATION;
  return Duration.fromMillis(ms).shiftTo('days', 'hours', 'minutes', 'seconds').toISO() ?? MAX_DURATION;
}
