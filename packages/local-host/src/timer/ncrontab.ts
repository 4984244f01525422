/**
 * NCRONTAB schedules as Azure Functions timer triggers write them: six fields
 * `second minute hour day month day-of-week`, evaluated in UTC (the host's default without WEBSITE_TIME_ZONE).
 * Supported per field: `*`, `n`, `a-b`, `*\/n`, `a-b/n` and comma lists of those; day-of-week 0–6 with 0 = Sunday
 * (7 is accepted as Sunday). As in NCrontab, a day must match both the day and the day-of-week fields.
 */
export interface CronSchedule {
  /** The first occurrence strictly after `after` (whole seconds). */
  next(after: Date): Date;
}

interface FieldSpec {
  readonly name: string;
  readonly min: number;
  readonly max: number;
}

const FIELDS: readonly FieldSpec[] = [
  { name: 'second', min: 0, max: 59 },
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day-of-week', min: 0, max: 7 },
];

// No schedule needs more than a few years to recur (29 February on a given weekday recurs within 28 years).
const SEARCH_LIMIT_MS = 30 * 366 * 24 * 3600 * 1000;

/**
 * Parses a six-field NCRONTAB expression.
 * @throws TypeError naming the field when the expression is malformed.
 */
export function parseNcrontab(expression: string): CronSchedule {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 6) {
    throw new TypeError(`NCRONTAB "${expression}": expected 6 fields (second minute hour day month day-of-week)`);
  }
  const [second, minute, hour, day, month, weekday] = FIELDS.map((spec, i) =>
    parseField(parts[i] ?? '', spec, expression),
  );
  if (!second || !minute || !hour || !day || !month || !weekday)
    throw new TypeError(`NCRONTAB "${expression}": malformed`);
  if (weekday.has(7)) weekday.add(0);
  return {
    next(after: Date): Date {
      const t = new Date(Math.floor(after.getTime() / 1000) * 1000 + 1000);
      const limit = after.getTime() + SEARCH_LIMIT_MS;
      // Advance the coarsest mismatching field to its next boundary and re-check; every step moves forward.
      while (t.getTime() <= limit) {
        if (!month.has(t.getUTCMonth() + 1)) {
          t.setUTCMonth(t.getUTCMonth() + 1, 1);
          t.setUTCHours(0, 0, 0, 0);
        } else if (!day.has(t.getUTCDate()) || !weekday.has(t.getUTCDay())) {
          t.setUTCDate(t.getUTCDate() + 1);
          t.setUTCHours(0, 0, 0, 0);
        } else if (!hour.has(t.getUTCHours())) {
          t.setUTCHours(t.getUTCHours() + 1, 0, 0, 0);
        } else if (!minute.has(t.getUTCMinutes())) {
          t.setUTCMinutes(t.getUTCMinutes() + 1, 0, 0);
        } else if (!second.has(t.getUTCSeconds())) {
          t.setUTCSeconds(t.getUTCSeconds() + 1, 0);
        } else {
          return t;
        }
      }
      throw new RangeError(`NCRONTAB "${expression}" has no occurrence after ${after.toISOString()}`);
    },
  };
}

function parseField(text: string, spec: FieldSpec, expression: string): Set<number> {
  const fail = (why: string): never => {
    throw new TypeError(`NCRONTAB "${expression}": ${spec.name} field "${text}" ${why}`);
  };
  const values = new Set<number>();
  for (const item of text.split(',')) {
    const match = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(item);
    if (!match) fail('is not *, n, a-b, */n or a-b/n');
    const [, whole, from, to, step] = match ?? [];
    let low = spec.min;
    let high = spec.max === 7 ? 6 : spec.max;
    if (whole !== '*') {
      low = Number(from);
      high = to !== undefined ? Number(to) : step !== undefined ? high : low;
    }
    const stride = step !== undefined ? Number(step) : 1;
    if (low < spec.min || high > spec.max || low > high) fail(`is outside ${spec.min}-${spec.max}`);
    if (stride < 1) fail('has a zero step');
    for (let v = low; v <= high; v += stride) values.add(v);
  }
  return values;
}
