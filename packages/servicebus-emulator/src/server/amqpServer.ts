import type { AddressInfo, Server, Socket } from 'node:net';
import type { Connection, Delivery, EventContext, Receiver, Sender, Session } from 'rhea';
import rhea from 'rhea';
import type { Broker } from '../broker/broker.js';
import type { EntityManager } from '../broker/entityManager.js';
import { parseAddress } from '../broker/entityAddress.js';
import { brokerErrors, isBrokerError } from '../errors/brokerError.js';
import { handleManagement } from '../management/router.js';
import type { AccessControl } from '../auth/accessControl.js';
import type { AccessRight } from '../config.js';
import { ConnectionGrants, handleCbs } from './cbsHandler.js';
import { DeliveryLink } from './deliveryLink.js';
import { acceptIncoming, rejectIncoming } from './dispositionGate.js';
import { IncomingLink } from './incomingLink.js';
import { LinkRegistry } from './linkRegistry.js';
import type { Link } from './linkRegistry.js';
import { installRawCapture, takeRaw } from './rawCapture.js';
import { ReplyRouter } from './replyRouter.js';
import { holdAttach, internals } from './rheaLink.js';
import { configureSasl } from './sasl.js';
import { MAX_FRAME_SIZE, guardFrames } from './frameGuard.js';
import { endPushes, pushAwaitedFrames, socketOf } from './framePush.js';
import { attachSession, requestedSession } from './sessionAttach.js';
import { OperationLatency } from './operationLatency.js';

/** What the server logs; the CLI passes a console logger, tests nothing. */
export type ServerLog = (level: 'info' | 'warn', message: string) => void;

/** Options of {@link AmqpServer}. */
export interface AmqpServerOptions {
  /** Checks the shared access signatures put on `$cbs` and the rights each link and operation needs. */
  readonly access: AccessControl;
  /** The management decisions `$management` rule operations share with the ATOM API. */
  readonly entities: EntityManager;
  /** Protocol warnings. @default silent */
  readonly log?: ServerLog;
  /**
   * Least time, in ms, from an operation's arrival to its reply (`--latency`), plus up to 10 % jitter: Azure's round
   * trip, simulated ({@link OperationLatency}). @default 0
   */
  readonly latencyMs?: number;
}

type Handler =
  | { kind: 'cbs' }
  | { kind: 'management'; address: string }
  | { kind: 'incoming'; link: IncomingLink }
  | { kind: 'delivery'; link: DeliveryLink; cancel: () => void };

/**
 * The AMQP 1.0 transport on rhea: SASL, CBS, `$management`, and links to entities. Each link gets a handler;
 * a link that detaches, or whose session ends, or whose connection closes or drops, takes its held attach
 * and session locks with it, and nothing one peer sends can stop the others being served.
 */
export class AmqpServer {
  private readonly container = rhea.create_container({ id: 'ledger-convoy-servicebus' });
  private readonly router = new ReplyRouter();
  private readonly links = new LinkRegistry<Handler>((h) => this.onReleased(h));
  private readonly sockets = new Set<Socket>();
  private readonly grants = new ConnectionGrants();
  private server: Server | undefined;

  private readonly log: ServerLog;
  private readonly latency: OperationLatency;

  constructor(
    private readonly broker: Broker,
    private readonly options: AmqpServerOptions,
  ) {
    this.log = options.log ?? (() => {});
    this.latency = new OperationLatency({ latencyMs: options.latencyMs ?? 0 });
    installRawCapture();
    configureSasl(this.container);
    this.wire();
  }

  /** Listens; resolves with the bound port. */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const server = this.container.listen({
        host,
        port,
        autosettle: false,
        autoaccept: false,
        treat_modified_as_released: false,
        max_frame_size: MAX_FRAME_SIZE,
        // Nagle's algorithm stays on (rhea's default for accepted sockets); `framePush.ts` pushes the frames a client
        // waits on until it streams messages.
        // Unsettled deliveries per session before rhea stops sending (peek-locked messages held by clients).
        session_buffer_size: 16384,
      } as never) as unknown as Server;
      this.server = server;
      server.on('connection', (s: Socket) => {
        guardFrames(s, (reason) => this.log('warn', `dropping a connection: ${reason}`));
        pushAwaitedFrames(s);
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
      });
      server.once('error', reject);
      server.once('listening', () => resolve((server.address() as AddressInfo).port));
    });
  }

  /** Stops listening and drops every connection. */
  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private wire(): void {
    const c = this.container;
    // With a latency, each operation is acted on (and so answered) once it is due, in its link's lane.
    const later = (link: Link, fn: () => void): void => this.latency.defer(link, () => this.guard(fn));
    c.on('receiver_open', (ctx: EventContext) => {
      const link = ctx.receiver as Receiver;
      this.guard(() => this.held(link, () => later(link, () => this.opened(link, () => this.onReceiverOpen(link)))));
    });
    c.on('sender_open', (ctx: EventContext) => {
      const link = ctx.sender as Sender;
      this.guard(() => this.held(link, () => later(link, () => this.opened(link, () => this.onSenderOpen(link)))));
    });
    c.on('message', (ctx: EventContext) => {
      // The raw bytes are taken now: rhea's capture holds only the latest transfer.
      const format = (ctx as unknown as { format?: number }).format ?? 0;
      const raw = format === 0 ? takeRaw() : (ctx.message as unknown as Buffer);
      later(ctx.receiver as Receiver, () => this.onMessage(ctx, format, raw));
    });
    for (const outcome of ['accepted', 'rejected', 'modified', 'released'] as const) {
      c.on(outcome, (ctx: EventContext) => later(ctx.sender as Sender, () => this.onOutcome(ctx, outcome)));
    }
    const pump = (ctx: EventContext): void =>
      this.guard(() => {
        const delivery = this.deliveryOf(ctx.sender);
        if (!delivery) return;
        // A flow's credit is spent (messages transferred) no earlier than the latency after it arrived.
        if (this.latency.enabled) delivery.holdTransfersUntil(this.latency.dueFromNow());
        delivery.entity.pump();
      });
    c.on('sendable', pump);
    c.on('sender_flow', pump);
    c.on('sender_draining', (ctx: EventContext) =>
      later(ctx.sender as Sender, () => this.deliveryOf(ctx.sender)?.onDrain()),
    );
    const closed = (ctx: EventContext): void =>
      this.guard(() => this.onLinkClosed((ctx.sender ?? ctx.receiver) as Link));
    c.on('sender_close', closed);
    c.on('receiver_close', closed);
    c.on('sender_error', () => {});
    c.on('receiver_error', () => {});
    // rhea raises no link events when a whole session or connection ends: release their links here.
    c.on('session_close', (ctx: EventContext) => this.guard(() => this.links.releaseSession(ctx.session as Session)));
    c.on('session_error', () => {});
    c.on('connection_error', () => {});
    // A close frame (with or without an error) raises connection_close; a dropped socket raises disconnected.
    c.on('connection_close', (ctx: EventContext) => this.guard(() => this.links.releaseConnection(ctx.connection)));
    c.on('disconnected', (ctx: EventContext) => this.guard(() => this.links.releaseConnection(ctx.connection)));
    c.on('protocol_error', (err: unknown) => this.log('warn', `protocol error from a peer: ${String(err)}`));
    c.on('error', (err: unknown) => this.log('warn', `connection error: ${String(err)}`));
  }

  /**
   * Runs an attach's handling later when there is a latency: rhea sends our attach as soon as `sender_open` or
   * `receiver_open` returns, so it is held until {@link opened} answers it.
   */
  private held(link: Link, handle: () => void): void {
    if (this.latency.enabled) holdAttach(link);
    handle();
  }

  /** Handles a held attach: skipped when the client has gone meanwhile, else opened and handled as on arrival. */
  private opened(link: Link, handle: () => void): void {
    if (!this.latency.enabled) return handle();
    if (!link.is_remote_open()) return;
    link.open();
    handle();
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log('warn', `handler failed: ${(err as Error).stack ?? String(err)}`);
    }
  }

  /**
   * Whether the link's connection put a valid token on `$cbs` that covers the address with `right` (with any right
   * for a `$management` link, whose operations are checked one by one); else the link is closed with
   * `amqp:unauthorized-access`, as Service Bus does.
   */
  private authorized(link: Link, address: string, right: AccessRight | undefined): boolean {
    const grants = this.grants.of(link.connection);
    try {
      if (right) this.options.access.authorize(grants, address, right, address);
      else this.options.access.authorizeAny(grants, address, address);
      return true;
    } catch (err) {
      link.close(isBrokerError(err) ? err.toAmqp() : undefined);
      return false;
    }
  }

  private deliveryOf(link: Sender | undefined): DeliveryLink | undefined {
    const h = link ? this.links.get(link) : undefined;
    return h?.kind === 'delivery' ? h.link : undefined;
  }

  private onReceiverOpen(link: Receiver): void {
    const li = internals(link);
    const address = li.remote.attach?.target?.address ?? '';
    // Echo the settle modes: .NET tracks unsettled CBS sends (and fails on reused tags) unless we agree to settled.
    li.local.attach.snd_settle_mode = li.remote.attach?.snd_settle_mode;
    li.local.attach.rcv_settle_mode = li.remote.attach?.rcv_settle_mode;
    if (address === '$cbs') {
      li.local.attach.target = li.remote.attach?.target ?? null;
      this.links.track(link, { kind: 'cbs' });
      return;
    }
    const parsed = parseAddress(address);
    if (parsed.management) {
      li.local.attach.target = li.remote.attach?.target ?? null;
      if (!this.authorized(link, address, undefined)) return;
      try {
        this.broker.queueFor(address.replace(/\/\$management$/i, ''));
      } catch (err) {
        if (!this.broker.isTopic(address)) return void link.close(isBrokerError(err) ? err.toAmqp() : undefined);
      }
      this.links.track(link, { kind: 'management', address: address.replace(/\/\$management$/i, '') });
      return;
    }
    if (!this.authorized(link, address, 'Send')) return;
    const incoming = IncomingLink.open(this.broker, link, address);
    if (incoming) this.links.track(link, { kind: 'incoming', link: incoming });
  }

  private onSenderOpen(link: Sender): void {
    const li = internals(link);
    const address = li.remote.attach?.source?.address ?? '';
    li.local.attach.source = li.remote.attach?.source ?? null;
    li.local.attach.target = li.remote.attach?.target ?? null;
    li.local.attach.snd_settle_mode = li.remote.attach?.snd_settle_mode;
    li.local.attach.rcv_settle_mode = li.remote.attach?.rcv_settle_mode;
    const parsed = parseAddress(address);
    if (address === '$cbs' || parsed.management) {
      this.router.register(link);
      return;
    }
    if (!this.authorized(link, address, 'Listen')) return;
    let entity;
    try {
      entity = this.broker.queueFor(address);
    } catch (err) {
      link.close(isBrokerError(err) ? err.toAmqp() : undefined);
      return;
    }
    if (entity.settings.status === 'Disabled' || entity.settings.status === 'ReceiveDisabled') {
      link.close(brokerErrors.entityDisabled(entity.name, 'receive').toAmqp());
      return;
    }
    const consumer = new DeliveryLink(entity, link, DeliveryLink.modeOf(link), this.broker.store);
    const session = requestedSession(link);
    if (entity.sessions && !session.present) {
      link.close({
        condition: 'amqp:not-allowed',
        description: `It is not possible for an entity that requires sessions to create a non-sessionful message receiver (${entity.name}).`,
      });
      return;
    }
    if (!entity.sessions && session.present) {
      link.close({
        condition: 'amqp:not-allowed',
        description: `The entity ${entity.name} does not require sessions; a session receiver cannot be created.`,
      });
      return;
    }
    entity.addConsumer(consumer);
    const cancel = entity.sessions ? attachSession(entity, consumer, session.sessionId) : () => {};
    this.links.track(link, { kind: 'delivery', link: consumer, cancel });
  }

  private onMessage(ctx: EventContext, format: number, raw: Buffer | undefined): void {
    const link = ctx.receiver as Receiver;
    const delivery = ctx.delivery as Delivery;
    const handler = this.links.get(link);
    if (!handler) {
      rejectIncoming(delivery, { condition: 'amqp:not-found', description: 'The link is not attached to an entity.' });
      return;
    }
    if (handler.kind === 'cbs') {
      acceptIncoming(delivery);
      handleCbs(this.router, this.options.access, this.grants, link.connection, ctx.message as never);
    } else if (handler.kind === 'management') {
      acceptIncoming(delivery);
      const context = {
        broker: this.broker,
        entities: this.options.entities,
        router: this.router,
        access: this.options.access,
        grants: this.grants.of(link.connection),
      };
      void handleManagement(context, link.connection, handler.address, ctx.message as never, raw);
    } else if (handler.kind === 'incoming') {
      this.streams(link.connection);
      handler.link.onTransfer(delivery, raw ?? rhea.message.encode(ctx.message as never), format);
    }
  }

  private onOutcome(ctx: EventContext, outcome: 'accepted' | 'rejected' | 'modified' | 'released'): void {
    const delivery = this.deliveryOf(ctx.sender);
    if (!delivery) return;
    this.streams(ctx.connection);
    delivery.onOutcome(ctx.delivery as Delivery, outcome);
  }

  /** The client of `connection` streams messages: its pushes are over ({@link endPushes}). */
  private streams(connection: Connection): void {
    const socket = socketOf(connection);
    if (socket) endPushes(socket);
  }

  /** The client detached the link: release it and answer with our detach. */
  private onLinkClosed(link: Link): void {
    this.links.release(link);
    if (link.is_open()) link.close();
  }

  /**
   * Undoes what a link holds in the engine: a held "next session" request is dropped, a session lock is given
   * back (its unsettled messages return in order) and the consumer stops getting messages.
   */
  private onReleased(h: Handler): void {
    if (h.kind !== 'delivery') return;
    h.cancel();
    h.link.entity.removeConsumer(h.link);
  }
}
