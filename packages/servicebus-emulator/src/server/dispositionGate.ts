import type { Delivery } from 'rhea';
import { outcomes } from '../broker/amqpTypes.js';

interface LinkOf {
  link: { session: object; is_sender(): boolean };
}

const current = new WeakMap<object, { in?: string; out?: string }>();

/**
 * rhea 3.0.5 writes the dispositions of consecutive deliveries settled in one tick as a single frame carrying
 * the first outcome, whatever the others were (`write_dispositions` skips the comparison for a range of one).
 * The broker must never let that turn a rejection into an acceptance, so within one tick and one session
 * direction only one kind of outcome goes out; a different one waits for the next turn of the event loop.
 */
function gate(delivery: Delivery, key: string, apply: () => void): void {
  const link = (delivery as unknown as LinkOf).link;
  const dir = link.is_sender() ? 'out' : 'in';
  let state = current.get(link.session);
  if (!state) {
    state = {};
    current.set(link.session, state);
  }
  const now = state[dir];
  if (now !== undefined && now !== key) {
    setImmediate(() => gate(delivery, key, apply));
    return;
  }
  apply();
  if (now === undefined) {
    state[dir] = key;
    setImmediate(() => {
      if (state) delete state[dir];
    });
  }
}

/** Settles a delivery the client sent us (a send, a CBS or management request) as accepted. */
export function acceptIncoming(delivery: Delivery): void {
  gate(delivery, 'accepted', () => delivery.accept());
}

/** Settles a delivery the client sent us as rejected with `error`. */
export function rejectIncoming(delivery: Delivery, error: { condition: string; description: string }): void {
  gate(delivery, `rejected:${error.condition}`, () => delivery.reject(error));
}

/**
 * Settles one of our deliveries (echo of the client's outcome): outgoing deliveries only have `update` in rhea.
 * Marks it remotely settled too: the receiver (rcv-settle-mode second) settles locally once it sees ours and sends
 * nothing more, and rhea would otherwise keep the delivery and stop sending after 2048 of them.
 */
export function settleOutgoing(delivery: Delivery, error?: { condition: string; description: string }): void {
  const outcome = error ? outcomes.rejected({ error }) : outcomes.accepted();
  gate(delivery, error ? `rejected:${error.condition}` : 'accepted', () => {
    const d = delivery as unknown as { update(settled: boolean, state: unknown): void; remote_settled: boolean };
    d.update(true, outcome.described());
    d.remote_settled = true;
  });
}
