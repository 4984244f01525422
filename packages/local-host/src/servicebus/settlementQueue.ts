/**
 * Serialises the settlements issued on one receiver link: each waits for the previous one's broker answer.
 *
 * Why: rhea 3.0.5 coalesces dispositions of consecutive deliveries settled in the same tick into one frame carrying
 * the first outcome, so a dead-letter and a complete issued together on one receiver would both become the first
 * one. Awaiting each settlement before the next keeps every disposition in its own frame.
 */
export interface SettlementQueue {
  /** Runs `settle` after every settlement queued before it has finished (successfully or not). */
  run<T>(settle: () => Promise<T>): Promise<T>;
}

/** A new, empty settlement queue for one receiver. */
export function createSettlementQueue(): SettlementQueue {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run<T>(settle: () => Promise<T>): Promise<T> {
      const result = tail.then(settle);
      tail = result.catch(() => undefined);
      return result;
    },
  };
}
