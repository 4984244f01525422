import type { AuthorizationRule, EntityMeta, EntitySettings } from '../../config.js';
import { formatDurationMs } from '../../duration.js';
import type { QueueEntity } from '../../broker/queueEntity.js';
import type { TopicEntity } from '../../broker/topicEntity.js';
import { PARTITIONS } from './descriptionFields.js';
import { NS, el, text } from './xml.js';

const iso = (ms: number): string => new Date(ms).toISOString();
const CONNECT = { xmlns: NS.sb, 'xmlns:i': NS.xsi };

/** How an entity's runtime figures read (messages of every state, bytes held). */
interface Counts {
  active: number;
  deadLetter: number;
  scheduled: number;
  sizeInBytes: number;
}

function countsOf(e: QueueEntity): Counts {
  const c = e.counts();
  const dlq = e.dlq?.counts();
  // Azure counts deferred messages as active.
  return {
    active: c.active + c.deferred,
    deadLetter: (dlq?.active ?? 0) + (dlq?.deferred ?? 0),
    scheduled: c.scheduled,
    sizeInBytes: e.sizeInBytes() + (e.dlq?.sizeInBytes() ?? 0),
  };
}

function countDetails(c: Counts): string {
  const d = (name: string, n: number): string => text(`d2p1:${name}`, n);
  return el(
    'CountDetails',
    [
      d('ActiveMessageCount', c.active),
      d('DeadLetterMessageCount', c.deadLetter),
      d('ScheduledMessageCount', c.scheduled),
      d('TransferMessageCount', 0),
      d('TransferDeadLetterMessageCount', 0),
    ],
    { 'xmlns:d2p1': NS.counts },
  );
}

/** Created, updated, and accessed: the last activity (send, receive, management operation), from which idle time counts. */
function times(m: EntityMeta, lastActivity: number): string[] {
  return [
    text('CreatedAt', iso(m.createdAt)),
    text('UpdatedAt', iso(m.updatedAt)),
    text('AccessedAt', iso(lastActivity)),
  ];
}

function forward(name: string, target: string | undefined, host: string): string | undefined {
  return target === undefined ? undefined : text(name, `sb://${host}/${target}`);
}

/** The entity's SAS rules, as SharedAccessAuthorizationRule entries. */
function authorizationRules(rules: readonly AuthorizationRule[]): string {
  return el(
    'AuthorizationRules',
    rules.map((r) =>
      el(
        'AuthorizationRule',
        [
          text('ClaimType', 'SharedAccessKey'),
          text('ClaimValue', 'None'),
          el(
            'Rights',
            r.rights.map((x) => text('AccessRights', x)),
          ),
          text('CreatedTime', iso(r.createdAt)),
          text('ModifiedTime', iso(r.modifiedAt)),
          text('KeyName', r.keyName),
          text('PrimaryKey', r.primaryKey),
          text('SecondaryKey', r.secondaryKey),
        ],
        { 'i:type': 'SharedAccessAuthorizationRule' },
      ),
    ),
  );
}

/** MaxSizeInMegabytes as Azure describes it: for all 16 partitions of a partitioned entity. */
const sizeOf = (s: EntitySettings, m: EntityMeta): number =>
  s.enablePartitioning ? m.maxSizeInMegabytes * PARTITIONS : m.maxSizeInMegabytes;

const ttl = (s: EntitySettings): string => text('DefaultMessageTimeToLive', formatDurationMs(s.defaultTtlMs));
const autoDelete = (s: EntitySettings): string => text('AutoDeleteOnIdle', formatDurationMs(s.autoDeleteOnIdleMs));

/** A queue's QueueDescription, its runtime figures included (the ATOM API always sends both). */
export function queueDescription(q: QueueEntity, host: string): string {
  const s = q.settings;
  const m = q.meta as EntityMeta;
  const c = countsOf(q);
  return el(
    'QueueDescription',
    [
      text('LockDuration', formatDurationMs(s.lockDurationMs)),
      text('MaxSizeInMegabytes', sizeOf(s, m)),
      text('RequiresDuplicateDetection', s.requiresDuplicateDetection),
      text('RequiresSession', s.requiresSession),
      ttl(s),
      text('DeadLetteringOnMessageExpiration', s.deadLetteringOnMessageExpiration),
      text('DuplicateDetectionHistoryTimeWindow', formatDurationMs(s.duplicateDetectionWindowMs)),
      text('MaxDeliveryCount', s.maxDeliveryCount),
      text('EnableBatchedOperations', m.enableBatchedOperations),
      text('SizeInBytes', c.sizeInBytes),
      text('MessageCount', c.active + c.deadLetter + c.scheduled),
      text('IsAnonymousAccessible', false),
      authorizationRules(s.authorizationRules),
      text('Status', s.status),
      forward('ForwardTo', s.forwardTo, host),
      ...times(m, q.lastActivity),
      m.userMetadata === undefined ? undefined : text('UserMetadata', m.userMetadata),
      text('SupportOrdering', true),
      countDetails(c),
      autoDelete(s),
      text('EnablePartitioning', s.enablePartitioning),
      text('EntityAvailabilityStatus', 'Available'),
      forward('ForwardDeadLetteredMessagesTo', s.forwardDeadLetteredMessagesTo, host),
      text('EnableExpress', false),
      text('MaxMessageSizeInKilobytes', Math.round(s.maxMessageSizeBytes / 1024)),
    ],
    CONNECT,
  );
}

/** A topic's TopicDescription with its runtime figures. */
export function topicDescription(t: TopicEntity): string {
  const s = t.settings;
  const m = t.meta;
  let size = 0;
  for (const sub of t.subscriptions.values()) size += countsOf(sub.entity).sizeInBytes;
  return el(
    'TopicDescription',
    [
      ttl(s),
      text('MaxSizeInMegabytes', sizeOf(s, m)),
      text('RequiresDuplicateDetection', s.requiresDuplicateDetection),
      text('DuplicateDetectionHistoryTimeWindow', formatDurationMs(s.duplicateDetectionWindowMs)),
      text('EnableBatchedOperations', m.enableBatchedOperations),
      text('SizeInBytes', size),
      text('FilteringMessagesBeforePublishing', false),
      text('IsAnonymousAccessible', false),
      authorizationRules(s.authorizationRules),
      text('Status', s.status),
      ...times(m, t.lastActivity),
      m.userMetadata === undefined ? undefined : text('UserMetadata', m.userMetadata),
      text('SupportOrdering', m.supportOrdering),
      countDetails({ active: 0, deadLetter: 0, scheduled: 0, sizeInBytes: size }),
      autoDelete(s),
      text('EnablePartitioning', s.enablePartitioning),
      text('SubscriptionCount', t.subscriptions.size),
      text('EntityAvailabilityStatus', 'Available'),
      text('EnableSubscriptionPartitioning', false),
      text('EnableExpress', false),
      text('MaxMessageSizeInKilobytes', Math.round(s.maxMessageSizeBytes / 1024)),
    ],
    CONNECT,
  );
}

/** A subscription's SubscriptionDescription with its runtime figures. */
export function subscriptionDescription(e: QueueEntity, host: string): string {
  const s = e.settings;
  const m = e.meta as EntityMeta;
  const c = countsOf(e);
  return el(
    'SubscriptionDescription',
    [
      text('LockDuration', formatDurationMs(s.lockDurationMs)),
      text('RequiresSession', s.requiresSession),
      ttl(s),
      text('DeadLetteringOnMessageExpiration', s.deadLetteringOnMessageExpiration),
      text('DeadLetteringOnFilterEvaluationExceptions', s.deadLetteringOnFilterEvaluationExceptions),
      text('MessageCount', c.active + c.deadLetter + c.scheduled),
      text('MaxDeliveryCount', s.maxDeliveryCount),
      text('EnableBatchedOperations', m.enableBatchedOperations),
      text('Status', s.status),
      forward('ForwardTo', s.forwardTo, host),
      ...times(m, e.lastActivity),
      m.userMetadata === undefined ? undefined : text('UserMetadata', m.userMetadata),
      countDetails(c),
      autoDelete(s),
      forward('ForwardDeadLetteredMessagesTo', s.forwardDeadLetteredMessagesTo, host),
      text('EntityAvailabilityStatus', 'Available'),
    ],
    CONNECT,
  );
}

/** The namespace's NamespaceInfo. */
export function namespaceInfo(name: string, createdAt: number): string {
  return el(
    'NamespaceInfo',
    [
      text('CreatedTime', iso(createdAt)),
      text('MessagingSKU', 'Standard'),
      text('ModifiedTime', iso(createdAt)),
      text('Name', name),
      text('NamespaceType', 'Messaging'),
    ],
    CONNECT,
  );
}
