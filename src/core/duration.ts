import { Duration } from 'luxon';

/**
 * Parses an ISO 8601 duration (`PT1M`, `P14D`, `P1DT2H30M`, `PT0.5S`, `P2W`, any letter case) into milliseconds, as
 * app settings and Service Bus entity properties spell them. Years and months are refused (their length varies), as
 * is a duration naming no unit (`P`, `PT`, `P1DT`). Returns `undefined` when the text is not such a duration.
 */
export function parseIsoDuration(text: string): number | undefined {
  const spelled = text.trim().toUpperCase();
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
