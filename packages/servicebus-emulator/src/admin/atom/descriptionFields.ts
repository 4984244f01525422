import { randomBytes } from 'node:crypto';
import { MIN_AUTO_DELETE_ON_IDLE_MS } from '../../config.js';
import type { AccessRight, AuthorizationRule, EntitySettings, EntityStatus } from '../../config.js';
import { isUnbounded, parseDurationMs } from '../../duration.js';
import { brokerErrors } from '../../errors/brokerError.js';
import type { EntityFacts } from '../../broker/entityManager.js';
import { child, childText, xsiType } from './xml.js';
import type { XmlNode } from './xml.js';

/** Azure's defaults for fields a create request leaves out. */
const DEFAULTS = {
  lockDuration: 'PT1M',
  dedupWindow: 'PT10M',
  maxDeliveryCount: 10,
  maxSizeInMegabytes: 1024,
  maxMessageKb: 256,
};

function bool(d: XmlNode, name: string, fallback: boolean): boolean {
  const v = childText(d, name);
  if (v === undefined || v === '') return fallback;
  if (/^true$/i.test(v)) return true;
  if (/^false$/i.test(v)) return false;
  throw brokerErrors.badRequest(`${name} must be true or false, got '${v}'.`);
}

function int(d: XmlNode, name: string, fallback: number, min = 1): number {
  const v = childText(d, name);
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min)
    throw brokerErrors.badRequest(`${name} must be an integer of at least ${min}, got '${v}'.`);
  return n;
}

function duration(d: XmlNode, name: string, fallback: string): number {
  const v = childText(d, name) || fallback;
  const ms = parseDurationMs(v);
  if (ms === undefined) throw brokerErrors.badRequest(`${name} must be an ISO 8601 duration such as PT1M, got '${v}'.`);
  return isUnbounded(ms) ? Infinity : ms;
}

/** `sb://host/name`, `http://host:port/name` or a bare name: the entity name. */
function forwardName(d: XmlNode, name: string): string | undefined {
  const v = childText(d, name);
  if (!v) return undefined;
  return v.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]+\//i, '').replace(/\/+$/, '');
}

/**
 * Features the management API can set but this emulator does not implement: a request that asks for one
 * is refused with a 400 naming it, instead of being stored and silently ignored.
 */
function refuseUnsupported(d: XmlNode): void {
  if (bool(d, 'EnableExpress', false)) throw brokerErrors.notImplemented('EnableExpress (express entities)');
}

/** `AutoDeleteOnIdle`: at least five minutes, as Azure requires; unbounded (the default) is never. */
function autoDeleteOnIdle(d: XmlNode): number {
  const ms = duration(d, 'AutoDeleteOnIdle', 'P10675199DT2H48M5.4775807S');
  if (ms < MIN_AUTO_DELETE_ON_IDLE_MS) {
    throw brokerErrors.badRequest(
      `AutoDeleteOnIdle must be at least 5 minutes (PT5M), got '${childText(d, 'AutoDeleteOnIdle')}'.`,
    );
  }
  return ms;
}

const STATUSES: readonly EntityStatus[] = ['Active', 'Disabled', 'SendDisabled', 'ReceiveDisabled'];
const RIGHTS: readonly AccessRight[] = ['Manage', 'Send', 'Listen'];

/** `Status`; a subscription can be Active, Disabled or ReceiveDisabled only, a topic not ReceiveDisabled, as on Azure. */
function status(d: XmlNode, kind: 'queue' | 'topic' | 'subscription'): EntityStatus {
  const v = childText(d, 'Status') || 'Active';
  const found = STATUSES.find((s) => s.toLowerCase() === v.toLowerCase());
  if (!found) throw brokerErrors.badRequest(`Status must be one of ${STATUSES.join(', ')}, got '${v}'.`);
  if ((kind === 'subscription' && found === 'SendDisabled') || (kind === 'topic' && found === 'ReceiveDisabled')) {
    throw brokerErrors.badRequest(`The status '${found}' is not valid for a ${kind}.`);
  }
  return found;
}

/** A description's `AuthorizationRules` (SharedAccessAuthorizationRule entries); a key left out is generated. */
function authorizationRules(d: XmlNode): AuthorizationRule[] {
  const list = (child(d, 'AuthorizationRules')?.AuthorizationRule as XmlNode[] | undefined) ?? [];
  const now = Date.now();
  return list.map((r) => {
    const type = xsiType(r) ?? 'SharedAccessAuthorizationRule';
    if (type !== 'SharedAccessAuthorizationRule')
      throw brokerErrors.notImplemented(`Authorization rule type '${type}'`);
    const keyName = childText(r, 'KeyName');
    if (!keyName) throw brokerErrors.badRequest('An authorization rule needs a KeyName.');
    const raw = child(r, 'Rights')?.AccessRights;
    const rights = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map((x) =>
      String(typeof x === 'object' && x !== null ? (x as XmlNode)['#text'] : x),
    );
    const bad = rights.find((x) => !RIGHTS.includes(x as AccessRight));
    if (bad !== undefined || rights.length === 0)
      throw brokerErrors.badRequest(`Authorization rule '${keyName}': rights must be some of ${RIGHTS.join(', ')}.`);
    if (rights.includes('Manage') && !(rights.includes('Send') && rights.includes('Listen'))) {
      throw brokerErrors.badRequest(`Authorization rule '${keyName}': the Manage right requires Send and Listen.`);
    }
    const key = (name: string): string => childText(r, name) || randomBytes(32).toString('base64');
    return {
      keyName,
      primaryKey: key('PrimaryKey'),
      secondaryKey: key('SecondaryKey'),
      rights: rights as AccessRight[],
      createdAt: now,
      modifiedAt: now,
    };
  });
}

/** Partitions of a partitioned entity on Standard: its description gives MaxSizeInMegabytes for all of them. */
export const PARTITIONS = 16;

/** A partitioned entity's size as sent back in an update (already for all partitions) is kept per partition. */
function perPartition(mb: number, partitioned: boolean): number {
  return partitioned && mb > 5120 && mb % PARTITIONS === 0 ? mb / PARTITIONS : mb;
}

/** Settings and facts of a QueueDescription, TopicDescription or SubscriptionDescription; absent fields take Azure's defaults. */
export function readDescription(
  d: XmlNode,
  kind: 'queue' | 'topic' | 'subscription',
): { settings: EntitySettings; facts: EntityFacts } {
  refuseUnsupported(d);
  const queueLike = kind !== 'topic';
  const settings: EntitySettings = {
    lockDurationMs: queueLike ? duration(d, 'LockDuration', DEFAULTS.lockDuration) : 60_000,
    maxDeliveryCount: queueLike ? int(d, 'MaxDeliveryCount', DEFAULTS.maxDeliveryCount) : DEFAULTS.maxDeliveryCount,
    defaultTtlMs: duration(d, 'DefaultMessageTimeToLive', 'P10675199DT2H48M5.4775807S'),
    deadLetteringOnMessageExpiration: queueLike && bool(d, 'DeadLetteringOnMessageExpiration', false),
    deadLetteringOnFilterEvaluationExceptions:
      kind === 'subscription' && bool(d, 'DeadLetteringOnFilterEvaluationExceptions', true),
    requiresDuplicateDetection: kind !== 'subscription' && bool(d, 'RequiresDuplicateDetection', false),
    duplicateDetectionWindowMs: duration(d, 'DuplicateDetectionHistoryTimeWindow', DEFAULTS.dedupWindow),
    requiresSession: queueLike && bool(d, 'RequiresSession', false),
    forwardTo: queueLike ? forwardName(d, 'ForwardTo') : undefined,
    forwardDeadLetteredMessagesTo: queueLike ? forwardName(d, 'ForwardDeadLetteredMessagesTo') : undefined,
    maxMessageSizeBytes:
      kind === 'subscription'
        ? DEFAULTS.maxMessageKb * 1024
        : int(d, 'MaxMessageSizeInKilobytes', DEFAULTS.maxMessageKb) * 1024,
    enablePartitioning: kind !== 'subscription' && bool(d, 'EnablePartitioning', false),
    status: status(d, kind),
    authorizationRules: kind === 'subscription' ? [] : authorizationRules(d),
    autoDeleteOnIdleMs: autoDeleteOnIdle(d),
  };
  const userMetadata = childText(d, 'UserMetadata');
  return {
    settings,
    facts: {
      userMetadata: userMetadata === '' ? undefined : userMetadata,
      maxSizeInMegabytes: perPartition(
        int(d, 'MaxSizeInMegabytes', DEFAULTS.maxSizeInMegabytes),
        settings.enablePartitioning,
      ),
      enableBatchedOperations: bool(d, 'EnableBatchedOperations', true),
      supportOrdering: kind !== 'topic' || bool(d, 'SupportOrdering', true),
    },
  };
}
