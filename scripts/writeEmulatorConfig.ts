/**
 * `npm run infra:emulator-config -- [--in <entity file>] [--out <file>]`: writes the entity file clamped to the
 * official Service Bus Docker emulator's limits, for people who run that emulator instead of ours.
 * Without `--out` the clamped JSON goes to stdout.
 *
 * The entity file keeps the production values (Bicep deploys them as they are); the Docker emulator refuses
 * a Config.json whose values exceed its limits, hence this copy.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { parseIsoDuration } from '../src/core/duration.js';

/** The Docker emulator's limits and fixed namespace name. */
export const DOCKER_EMULATOR_LIMITS = Object.freeze({
  namespaceName: 'sbemulatorns',
  duplicateDetectionWindowMin: 'PT5S',
  duplicateDetectionWindowMax: 'PT5M',
  lockDurationMax: 'PT5M',
  messageTimeToLiveMax: 'PT1H',
  maxDeliveryCountMax: 10,
});

// Unknown keys are kept: the file may carry emulator options this script does not know about.
const propertiesSchema = z.looseObject({
  DuplicateDetectionHistoryTimeWindow: z.string().optional(),
  LockDuration: z.string().optional(),
  DefaultMessageTimeToLive: z.string().optional(),
  MaxDeliveryCount: z.number().int().positive().optional(),
});
const subscriptionSchema = z.looseObject({ Name: z.string(), Properties: propertiesSchema.optional() });
const topicSchema = z.looseObject({
  Name: z.string(),
  Properties: propertiesSchema.optional(),
  Subscriptions: z.array(subscriptionSchema).optional(),
});
const namespaceSchema = z.looseObject({
  Name: z.string(),
  Queues: z.array(z.looseObject({ Name: z.string(), Properties: propertiesSchema.optional() })).optional(),
  Topics: z.array(topicSchema).optional(),
});

/** Schema of the entity file (the official emulator's Config.json format). */
export const entityFileSchema = z.looseObject({
  UserConfig: z.looseObject({ Namespaces: z.array(namespaceSchema).min(1) }),
});

/** A parsed entity file. */
export type EntityFile = z.infer<typeof entityFileSchema>;
type EntityProperties = z.infer<typeof propertiesSchema>;

/**
 * Milliseconds of an ISO 8601 duration made of days, hours, minutes and seconds (`P14D`, `PT1H30M`, `PT0.5S`).
 * Years, months and weeks are rejected: Service Bus durations never need them and their length is ambiguous.
 * @throws TypeError for any other string.
 */
export function durationToMs(value: string): number {
  // The copy keeps the original spelling, so only the units the official emulator reads get through.
  const ms = /^P[\dDTHMS.]+$/.test(value) ? parseIsoDuration(value) : undefined;
  if (ms === undefined) throw new TypeError(`durationToMs: not a day/time ISO 8601 duration: ${value}`);
  return ms;
}

function clampDuration(value: string | undefined, min: string | undefined, max: string): string | undefined {
  if (value === undefined) return undefined;
  const ms = durationToMs(value);
  if (ms > durationToMs(max)) return max;
  if (min !== undefined && ms < durationToMs(min)) return min;
  // Within limits: keep the original spelling.
  return value;
}

function clampProperties(properties: EntityProperties | undefined): EntityProperties | undefined {
  if (!properties) return undefined;
  const limits = DOCKER_EMULATOR_LIMITS;
  const clamped: Record<string, unknown> = { ...properties };
  const set = (key: keyof EntityProperties, value: unknown): void => {
    if (value !== undefined) clamped[key] = value;
  };
  set(
    'DuplicateDetectionHistoryTimeWindow',
    clampDuration(
      properties.DuplicateDetectionHistoryTimeWindow,
      limits.duplicateDetectionWindowMin,
      limits.duplicateDetectionWindowMax,
    ),
  );
  set('LockDuration', clampDuration(properties.LockDuration, undefined, limits.lockDurationMax));
  set(
    'DefaultMessageTimeToLive',
    clampDuration(properties.DefaultMessageTimeToLive, undefined, limits.messageTimeToLiveMax),
  );
  set(
    'MaxDeliveryCount',
    properties.MaxDeliveryCount === undefined
      ? undefined
      : Math.min(properties.MaxDeliveryCount, limits.maxDeliveryCountMax),
  );
  // The Docker emulator has no AutoDeleteOnIdle: its entities live as long as the container.
  delete clamped.AutoDeleteOnIdle;
  return clamped as EntityProperties;
}

function withProperties<T extends { Properties?: EntityProperties | undefined }>(entity: T): T {
  const properties = clampProperties(entity.Properties);
  return properties ? { ...entity, Properties: properties } : entity;
}

/**
 * Returns a copy of the entity file within the official Docker emulator's limits
 * ({@link DOCKER_EMULATOR_LIMITS}): the namespace is renamed `sbemulatorns`, durations and delivery counts above
 * a limit become the limit, a duplicate-detection window below PT5S becomes PT5S, `AutoDeleteOnIdle` (which that
 * emulator does not have) is dropped. Names, flags and every other property are kept. The input is not modified.
 * @throws ZodError when the input is not in the Config.json format; TypeError for an unreadable duration.
 */
export function clampForDockerEmulator(input: unknown): EntityFile {
  entityFileSchema.parse(input);
  // Work on a copy of the input, not on the parse result, so the output keeps the file's key order.
  const file = structuredClone(input) as EntityFile;
  return {
    ...file,
    UserConfig: {
      ...file.UserConfig,
      Namespaces: file.UserConfig.Namespaces.map((namespace) => ({
        ...namespace,
        Name: DOCKER_EMULATOR_LIMITS.namespaceName,
        ...(namespace.Queues ? { Queues: namespace.Queues.map(withProperties) } : {}),
        ...(namespace.Topics
          ? {
              Topics: namespace.Topics.map((topic) => ({
                ...withProperties(topic),
                ...(topic.Subscriptions ? { Subscriptions: topic.Subscriptions.map(withProperties) } : {}),
              })),
            }
          : {}),
      })),
    },
  };
}

function main(): void {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const { values } = parseArgs({
    options: {
      in: { type: 'string', default: join(root, 'infra', 'servicebus.config.json') },
      out: { type: 'string' },
    },
  });
  const input: unknown = JSON.parse(readFileSync(values.in, 'utf8'));
  const text = `${JSON.stringify(clampForDockerEmulator(input), null, 2)}\n`;
  if (!values.out) {
    process.stdout.write(text);
    return;
  }
  mkdirSync(dirname(resolve(values.out)), { recursive: true });
  writeFileSync(values.out, text);
  console.error(`Wrote ${resolve(values.out)} (clamped to the Docker emulator's limits)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main();
}
