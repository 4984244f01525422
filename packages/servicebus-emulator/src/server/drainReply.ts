import type { Sender } from 'rhea';

/** The sender fields rhea reads when it writes a flow frame for the link (lib/link.js, lib/session.js). */
interface SenderFlowState {
  credit: number;
  delivery_count: number;
  _draining: boolean;
  _drained: boolean;
  _get_drain(): boolean;
  set_drained(drained: boolean): void;
}

const answering = new WeakSet<Sender>();

/**
 * Flow state for a drain answer: whatever credit is left is consumed (the delivery count moves past it) and
 * the flow carries `drain=true`. Installed on single links, in place of rhea's `Sender.prototype._get_drain`,
 * which flags the flow only while credit is above 0. When a delivery crosses the client's drain request the
 * credit is already 0, so rhea's answer went out without the flag; the SDK then waits for it in vain, closes
 * its receiver after 200 ms and a session receiver loses its session lock.
 */
function drainFlowState(this: SenderFlowState): boolean {
  if (!this._draining || !this._drained) return false;
  // A client whose delivery count lags behind in-flight transfers can leave the computed credit below 0.
  this.delivery_count += Math.max(0, this.credit);
  this.credit = 0;
  return true;
}

/**
 * Answers the client's drain on `link` with a flow carrying `drain=true`, delivery count advanced and link
 * credit 0 — also when the credit was already used up. Call it after delivering what is available: rhea
 * writes transfers waiting for credit before the link's flow frame, so they keep the credit they need.
 */
export function answerDrain(link: Sender): void {
  const state = link as unknown as SenderFlowState;
  if (!answering.has(link)) {
    answering.add(link);
    state._get_drain = drainFlowState;
  }
  state.set_drained(true);
}
