import type { OperationKind } from '../operations.js';
import type { Reply } from './reply.js';

/** A classified request: what it is (for counters and faults) and how to answer it. */
export interface Route {
  operation: OperationKind;
  handle: () => Reply | Promise<Reply>;
}
