import type { Broker } from '../broker/broker.js';
import type { QueueEntity } from '../broker/queueEntity.js';

/** One `$management` request, already routed to its entity. */
export interface ManagementRequest {
  readonly broker: Broker;
  /** The entity path the management link is attached to (without `/$management`). */
  readonly address: string;
  readonly body: Record<string, unknown>;
}

/** A reply: status code and optional map body (values may be rhea typed values). */
export interface ManagementReply {
  status: number;
  body?: Record<string, unknown>;
}

/** A handler for one operation. */
export type ManagementOperation = (req: ManagementRequest) => ManagementReply;

/** The queue-like entity of a request; throws EntityNotFound. */
export function entityOf(req: ManagementRequest): QueueEntity {
  return req.broker.queueFor(req.address);
}
