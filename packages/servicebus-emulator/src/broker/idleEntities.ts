import type { EntitySettings } from '../config.js';
import type { QueueEntity } from './queueEntity.js';
import type { TopicEntity } from './topicEntity.js';

/** How often idle entities are looked for: one is deleted at most this long after its idle time ran out. */
export const IDLE_SWEEP_MS = 30_000;

/** What `AutoDeleteOnIdle` needs of an entity: its setting, its last activity, and whether a receiver holds it. */
interface Watched {
  readonly settings: EntitySettings;
  lastActivity: number;
  readonly busy: boolean;
}

/**
 * Whether `e` has been idle for its `AutoDeleteOnIdle` at `now`. An entity with a receiver attached, or one waiting
 * for a session, is not idle, as on Azure: its idle time starts again from now.
 */
function isIdle(e: Watched, now: number): boolean {
  if (!Number.isFinite(e.settings.autoDeleteOnIdleMs)) return false;
  if (e.busy) {
    e.lastActivity = now;
    return false;
  }
  return now - e.lastActivity >= e.settings.autoDeleteOnIdleMs;
}

/** The entities to delete at `now`: whole topics (with their subscriptions), lone subscriptions, and queues. */
export interface IdleChoice {
  readonly queues: QueueEntity[];
  readonly topics: TopicEntity[];
  readonly subscriptions: { topic: TopicEntity; name: string; entity: QueueEntity }[];
}

/** Picks the idle queues, topics and subscriptions among `queues` and `topics`. */
export function chooseIdle(queues: readonly QueueEntity[], topics: readonly TopicEntity[], now: number): IdleChoice {
  const choice: IdleChoice = { queues: queues.filter((q) => isIdle(q, now)), topics: [], subscriptions: [] };
  for (const topic of topics) {
    if (isIdle(topic, now)) {
      choice.topics.push(topic);
      continue;
    }
    for (const s of topic.subscriptions.values())
      if (isIdle(s.entity, now)) choice.subscriptions.push({ topic, name: s.name, entity: s.entity });
  }
  return choice;
}

/** Whether an entity deleted when idle has activity newer than `since` (then its last activity is worth saving). */
export function activitySince(queues: readonly QueueEntity[], topics: readonly TopicEntity[], since: number): boolean {
  const newer = (e: Watched): boolean => Number.isFinite(e.settings.autoDeleteOnIdleMs) && e.lastActivity > since;
  return (
    queues.some(newer) || topics.some((t) => newer(t) || [...t.subscriptions.values()].some((s) => newer(s.entity)))
  );
}
