import type { Sender } from 'rhea';
import type { QueueEntity } from '../broker/queueEntity.js';
import type { BrokerError } from '../errors/brokerError.js';
import type { DeliveryLink } from './deliveryLink.js';
import { lockedUntilProperty } from './deliveryLink.js';
import { holdAttach, internals } from './rheaLink.js';

const SESSION_FILTER = 'com.microsoft:session-filter';
const DEFAULT_WAIT_MS = 60_000;

/** The session a client asked for: a string, or `undefined` for "next available". */
export function requestedSession(link: Sender): { present: boolean; sessionId: string | undefined } {
  const filter = internals(link).remote.attach?.source?.filter;
  if (!filter || !(SESSION_FILTER in filter)) return { present: false, sessionId: undefined };
  let v = filter[SESSION_FILTER];
  // .NET wraps the value in a described type; the JS SDK sends it bare.
  if (v && typeof v === 'object' && 'value' in (v as object)) v = (v as { value: unknown }).value;
  return { present: true, sessionId: v === null || v === undefined ? undefined : String(v) };
}

/**
 * Answers a session receiver's attach. The attach is held until a session is locked for it (or the wait
 * times out); then it goes out with the session id echoed in the filter and `locked-until-utc` in .NET ticks.
 * On failure the attach goes out with a null source, immediately followed by a detach carrying the error.
 * Returns a function that cancels a pending wait (the client gave up).
 */
export function attachSession(entity: QueueEntity, consumer: DeliveryLink, sessionId: string | undefined): () => void {
  const link = consumer.link;
  const li = internals(link);
  const address = li.remote.attach?.source?.address;
  const timeout = Number(li.remote.attach?.properties?.['com.microsoft:timeout'] ?? DEFAULT_WAIT_MS);
  const sessions = entity.sessions;
  if (!sessions) return () => {};
  let answered = false;
  let held = false;
  const answer = (r: { sessionId: string; lockedUntil: number } | BrokerError): void => {
    answered = true;
    if ('code' in r) {
      li.local.attach.source = null;
      if (held) link.open();
      link.close(r.toAmqp());
      return;
    }
    link.set_source({ address, filter: { [SESSION_FILTER]: r.sessionId } } as never);
    li.local.attach.properties = {
      ...(li.local.attach.properties ?? {}),
      'com.microsoft:locked-until-utc': lockedUntilProperty(r.lockedUntil),
    };
    if (held) {
      link.open();
      entity.pump();
    }
  };
  // Answered synchronously inside sender_open, rhea sends the attach as soon as the handler returns.
  const cancel = sessions.accept(sessionId, consumer, timeout > 0 ? timeout : DEFAULT_WAIT_MS, answer);
  if (!answered) {
    held = true;
    holdAttach(link);
  }
  return cancel;
}
