import { randomBytes } from 'node:crypto';
import type { Delivery, Sender, Typed } from 'rhea';
import rhea from 'rhea';
import type { Consumer, ReceiveMode, Settlement } from '../broker/consumer.js';
import { tokenToDeliveryTag } from '../broker/lockToken.js';
import type { QueueEntity } from '../broker/queueEntity.js';
import type { MessageLock, StoredMessage } from '../broker/storedMessage.js';
import { stateCode } from '../broker/storedMessage.js';
import { renderMessage, typedEntries } from '../broker/wireMessage.js';
import { tokenToUuidBytes } from '../broker/lockToken.js';
import type { BrokerError } from '../errors/brokerError.js';
import type { MessageStore } from '../store/messageStore.js';
import { isBrokerError } from '../errors/brokerError.js';
import { settleOutgoing } from './dispositionGate.js';
import { answerDrain } from './drainReply.js';
import { internals } from './rheaLink.js';

let nextId = 0;

/**
 * Disposition state as rhea hands it over on the sending side: an outcome whose `value` holds its fields as AMQP
 * values (modified: delivery-failed, undeliverable-here, message-annotations; rejected: the error, whose own
 * fields are condition, description, info). The typed fields are read, not rhea's decoded getters, so properties
 * keep their AMQP types.
 */
interface RemoteOutcome {
  undeliverable_here?: boolean;
  value?: Typed[];
}

/** Renders a stored message for a delivery or a `$management` reply. */
export function renderFor(m: StoredMessage, lock: MessageLock | undefined, deliveryCount: number): Buffer {
  return renderMessage(m.sections, {
    sequenceNumber: m.sequenceNumber,
    enqueuedTime: m.enqueuedTime,
    deliveryCount,
    state: stateCode(m),
    lockToken: lock ? tokenToUuidBytes(lock.token) : undefined,
    lockedUntil: lock?.until,
    deadLetterSource: m.deadLetterSource,
  });
}

/**
 * A client's receiving link: the engine's {@link Consumer} over a rhea sender. Deliveries carry the lock token
 * as their tag; the client's outcomes (accepted / modified / rejected / released) become settlements, echoed
 * back as a settled `accepted`, or `rejected{message-lock-lost}` when the lock is gone.
 */
export class DeliveryLink implements Consumer {
  readonly id = `link-${++nextId}`;
  sessionId: string | undefined = undefined;
  private readonly tokens = new WeakMap<Delivery, string>();
  /** rhea takes credit only when a transfer is written, so deliveries still queued in rhea count against it. */
  private unsent: number[] = [];
  private pumpQueued = false;
  /** `performance.now()` time before which no message is transferred (the latency of the last flow). */
  private heldUntil = 0;
  private heldTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly entity: QueueEntity,
    readonly link: Sender,
    readonly mode: ReceiveMode,
    private readonly store: MessageStore,
  ) {}

  /** Receive mode from the client's attach: settled sends mean receiveAndDelete. */
  static modeOf(link: Sender): ReceiveMode {
    return internals(link).remote.attach?.snd_settle_mode === 1 ? 'receiveAndDelete' : 'peekLock';
  }

  credit(): number {
    const li = internals(this.link);
    if (!this.link.is_open() || !li.sendable()) return 0;
    if (li.state.open_requests > 0) {
      // Our attach is not written yet, and rhea writes a session's transfers before its attaches: a transfer now
      // would reach the client on a handle it does not know (.NET ends the session with unattached-handle). rhea
      // writes pending frames on the next tick; deliver after that.
      if (!this.pumpQueued) {
        this.pumpQueued = true;
        setImmediate(() => {
          this.pumpQueued = false;
          this.entity.pump();
        });
      }
      return 0;
    }
    const wait = this.heldUntil - performance.now();
    if (wait > 0) {
      // Pumped again once the hold is over (the latency of a flow, see holdTransfersUntil).
      if (this.heldTimer === undefined)
        this.heldTimer = setTimeout(() => {
          this.heldTimer = undefined;
          this.entity.pump();
        }, Math.ceil(wait));
      return 0;
    }
    if (this.unsent.length > 0) {
      const next = (this.link.session as unknown as { outgoing: { next_pending_delivery: number } }).outgoing
        .next_pending_delivery;
      this.unsent = this.unsent.filter((id) => id >= next);
    }
    return li.credit - this.unsent.length;
  }

  /**
   * Holds the link's transfers until `until` (`performance.now()` time): a flow that just arrived is answered with
   * messages no earlier than the simulated latency after it (`--latency`).
   */
  holdTransfersUntil(until: number): void {
    this.heldUntil = Math.max(this.heldUntil, until);
  }

  deliver(m: StoredMessage, lock: MessageLock | undefined): void {
    const payload = renderFor(m, lock, lock ? lock.priorDeliveries : m.deliveryCount);
    const tag = lock ? tokenToDeliveryTag(lock.token) : randomBytes(16);
    const delivery = (this.link as unknown as { send(p: Buffer, tag: Buffer, format: number): Delivery }).send(
      payload,
      tag,
      0,
    );
    if (lock) this.tokens.set(delivery, lock.token);
    this.unsent.push(delivery.id);
  }

  sessionLost(error: BrokerError): void {
    this.link.close(error.toAmqp());
  }

  /** The client asked for a drain: deliver what is there, then answer with the rest of the credit consumed. */
  onDrain(): void {
    this.entity.pump();
    answerDrain(this.link);
  }

  /** Handles a disposition from the client. */
  onOutcome(delivery: Delivery, kind: 'accepted' | 'modified' | 'rejected' | 'released'): void {
    const token = this.tokens.get(delivery);
    if (token === undefined) return;
    const outcome = (delivery as unknown as { remote_state?: RemoteOutcome }).remote_state ?? {};
    const settlement = toSettlement(kind, outcome);
    this.tokens.delete(delivery);
    try {
      if (settlement) this.entity.settle(token, settlement);
      else this.entity.release(token);
    } catch (err) {
      settleOutgoing(
        delivery,
        isBrokerError(err) ? err.toAmqp() : { condition: 'amqp:internal-error', description: String(err) },
      );
      return;
    }
    // With a data directory, a settlement is confirmed only once it is on disk.
    if (!this.store.durable) settleOutgoing(delivery);
    else
      void this.store.flush().then(
        () => settleOutgoing(delivery),
        () => settleOutgoing(delivery, { condition: 'amqp:internal-error', description: 'store write failed' }),
      );
  }
}

function toSettlement(kind: string, o: RemoteOutcome): Settlement | undefined {
  switch (kind) {
    case 'accepted':
      return { kind: 'complete' };
    case 'modified': {
      const props = typedEntries(o.value?.[2]);
      return o.undeliverable_here ? { kind: 'defer', props } : { kind: 'abandon', props };
    }
    case 'rejected': {
      const error = o.value?.[0] as (Typed & { value?: Typed[] }) | undefined;
      const props = typedEntries(Array.isArray(error?.value) ? error.value[2] : undefined);
      const text = (key: string): string | undefined => {
        const v = props.get(key)?.value;
        props.delete(key);
        return typeof v === 'string' ? v : undefined;
      };
      const reason = text('DeadLetterReason');
      const description = text('DeadLetterErrorDescription');
      return { kind: 'deadLetter', reason, description, props };
    }
    default:
      return undefined;
  }
}

/** Ticks of .NET's DateTime for an epoch-ms time, as the 8-byte big-endian long AMQP carries. */
function toDotNetTicks(ms: number): Buffer {
  const ticks = BigInt(ms) * 10000n + 621355968000000000n;
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(ticks);
  return b;
}

/** The `com.microsoft:locked-until-utc` link property value. */
export function lockedUntilProperty(ms: number): unknown {
  return rhea.types.wrap_long(toDotNetTicks(ms));
}
