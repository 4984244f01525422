import type { Typed } from 'rhea';
import type { Broker } from '../broker/broker.js';
import type { EntityManager } from '../broker/entityManager.js';
import type { QueueEntity } from '../broker/queueEntity.js';

/** One `$management` request, already routed to its entity. */
export interface ManagementRequest {
  readonly broker: Broker;
  /** The management decisions shared with the ATOM API (rules, saved with the namespace). */
  readonly entities: EntityManager;
  /** The entity path the management link is attached to (without `/$management`). */
  readonly address: string;
  readonly body: Record<string, unknown>;
  /** A body field as the client encoded it (AMQP types intact), when the request's bytes were kept. */
  typedField(key: string): Typed | undefined;
}

/** A reply: status code and optional map body (values may be rhea typed values). */
export interface ManagementReply {
  status: number;
  body?: Record<string, unknown>;
}

/** A handler for one operation. */
export type ManagementOperation = (req: ManagementRequest) => ManagementReply | Promise<ManagementReply>;

/** The queue-like entity of a request; throws EntityNotFound. */
export function entityOf(req: ManagementRequest): QueueEntity {
  return req.broker.queueFor(req.address);
}
