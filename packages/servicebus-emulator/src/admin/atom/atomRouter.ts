import type { AccessControl } from '../../auth/accessControl.js';
import type { Broker } from '../../broker/broker.js';
import type { EntityManager, PutMode } from '../../broker/entityManager.js';
import { brokerErrors, isBrokerError } from '../../errors/brokerError.js';
import { readDescription } from './descriptionFields.js';
import { namespaceInfo, queueDescription, subscriptionDescription, topicDescription } from './descriptionXml.js';
import { readRule, ruleDescription } from './ruleXml.js';
import { NS, child, el, esc, readEntry, text } from './xml.js';

/** One ATOM request, as the HTTP layer hands it over. */
export interface AtomRequest {
  method: string;
  /** Decoded path without the leading slash. */
  path: string;
  query: URLSearchParams;
  /** `https://host:port` as the client addressed us. */
  base: string;
  /** `host:port` as the client addressed us: forwarding addresses in descriptions name it. */
  host: string;
  ifMatch: boolean;
  body: string;
  /** The `Authorization` header: a shared access signature. */
  authorization: string | undefined;
}

/** Options of {@link AtomRouter}. */
export interface AtomRouterOptions {
  readonly broker: Broker;
  readonly entities: EntityManager;
  /** Checks the `Authorization` header: every management operation needs the Manage right. */
  readonly access: AccessControl;
}

/** The reply: status, content type and XML. */
export interface AtomReply {
  status: number;
  contentType: string;
  body: string;
}

const ENTRY = 'application/atom+xml;type=entry;charset=utf-8';
const FEED = 'application/atom+xml;type=feed;charset=utf-8';

/** An entity path: queue or topic, subscription, rule, or a list of them. */
type Target =
  | { kind: 'namespace' }
  | { kind: 'queues' | 'topics' }
  | { kind: 'entity'; name: string }
  | { kind: 'subscriptions'; topic: string }
  | { kind: 'subscription'; topic: string; name: string }
  | { kind: 'rules'; topic: string; subscription: string }
  | { kind: 'rule'; topic: string; subscription: string; name: string };

function targetOf(path: string): Target {
  const p = path.replace(/^\/+/, '');
  if (/^\$namespaceinfo\/?$/i.test(p)) return { kind: 'namespace' };
  if (/^\$Resources\/Queues\/?$/i.test(p)) return { kind: 'queues' };
  if (/^\$Resources\/Topics\/?$/i.test(p)) return { kind: 'topics' };
  let m = /^(.+?)\/Subscriptions\/([^/]+)\/Rules\/?([^/]*)$/i.exec(p);
  if (m)
    return m[3]
      ? { kind: 'rule', topic: m[1] as string, subscription: m[2] as string, name: m[3] }
      : { kind: 'rules', topic: m[1] as string, subscription: m[2] as string };
  m = /^(.+?)\/Subscriptions\/?([^/]*)$/i.exec(p);
  if (m)
    return m[2]
      ? { kind: 'subscription', topic: m[1] as string, name: m[2] }
      : { kind: 'subscriptions', topic: m[1] as string };
  if (p === '' || p.includes('/')) throw brokerErrors.badRequest(`'/${p}' is not a management API path.`);
  return { kind: 'entity', name: p.replace(/\/+$/, '') };
}

/** Wraps a description in an ATOM entry whose `id` is its URL (the JS SDK reads the names from it) and `title` its name (.NET does). */
function entry(base: string, path: string, title: string, content: string): string {
  const url = `${base}/${path}`;
  const now = new Date().toISOString();
  return el(
    'entry',
    [
      text('id', url),
      text('title', title, { type: 'text' }),
      text('published', now),
      text('updated', now),
      el('link', '', { rel: 'self', href: url }),
      el('content', content, { type: 'application/xml' }),
    ],
    { xmlns: NS.atom },
  );
}

function feed(req: AtomRequest, title: string, entries: string[]): AtomReply {
  const skip = Number(req.query.get('$skip') ?? 0) || 0;
  const top = Number(req.query.get('$top') ?? 100) || 100;
  const page = entries.slice(skip, skip + top);
  const self = `${req.base}/${req.path}`;
  const links = [el('link', '', { rel: 'self', href: self })];
  if (skip + top < entries.length) {
    const next = new URLSearchParams(req.query);
    next.set('$skip', String(skip + top));
    next.set('$top', String(top));
    links.push(el('link', '', { rel: 'next', href: `${self}?${next.toString()}` }));
  }
  const body = el(
    'feed',
    [
      text('title', title, { type: 'text' }),
      text('id', self),
      text('updated', new Date().toISOString()),
      ...links,
      ...page,
    ],
    { xmlns: NS.atom },
  );
  return { status: 200, contentType: FEED, body: `<?xml version="1.0" encoding="utf-8"?>${body}` };
}

/** Azure answers a GET of an unknown entity with an empty feed (both SDKs turn that into "not found"). */
function emptyFeed(req: AtomRequest): AtomReply {
  return feed({ ...req, query: new URLSearchParams() }, 'Publicly Listed Services', []);
}

function ok(status: number, xml: string): AtomReply {
  return { status, contentType: ENTRY, body: `<?xml version="1.0" encoding="utf-8"?>${xml}` };
}

/** The error body both SDKs read (`Error.Detail`), with Azure's status codes. */
export function errorReply(status: number, detail: string): AtomReply {
  const body = el('Error', [text('Code', status), el('Detail', esc(detail))]);
  return { status, contentType: 'application/xml; charset=utf-8', body };
}

/**
 * The Service Bus ATOM management API over the engine: one function from request to reply. Lists honour
 * `$skip`/`$top` and link the next page; a PUT creates (409 when the entity exists) or, with `If-Match: *`,
 * updates (404 when it does not); every change goes through {@link EntityManager}.
 */
export class AtomRouter {
  private readonly startedAt = Date.now();

  private readonly broker: Broker;
  private readonly manager: EntityManager;

  constructor(private readonly options: AtomRouterOptions) {
    this.broker = options.broker;
    this.manager = options.entities;
  }

  async handle(req: AtomRequest): Promise<AtomReply> {
    // ForwardTo and ForwardDeadLetteredMessagesTo name entities by the namespace's address as the client addressed
    // it (`sb://host:port/name`, the Host of this request): on Azure the namespace has one host name for AMQP and
    // management, and clients compare the address with the endpoint of their own connection string.
    const denied = this.deny(req);
    if (denied) return denied;
    try {
      return await this.route(req);
    } catch (err) {
      if (isBrokerError(err)) {
        const status = err.code === 'NotImplemented' ? 400 : err.status;
        const sub = err.code === 'EntityAlreadyExists' ? 'SubCode=40900. Conflict. ' : '';
        return errorReply(status, `${sub}${err.message}`);
      }
      throw err;
    }
  }

  /** A 401 for a request without a valid signature granting Manage on its path, as Service Bus answers. */
  private deny(req: AtomRequest): AtomReply | undefined {
    const access = this.options.access;
    if (access.open) return undefined;
    const grant = access.authenticate(req.authorization ?? '');
    if ('code' in grant) return errorReply(401, grant.message);
    try {
      access.authorize([grant], req.path, 'Manage', `${req.base}/${req.path}`);
      return undefined;
    } catch (err) {
      if (isBrokerError(err)) return errorReply(401, err.message);
      throw err;
    }
  }

  private async route(req: AtomRequest): Promise<AtomReply> {
    const t = targetOf(req.path);
    const mode: PutMode = req.ifMatch ? 'update' : 'create';
    switch (req.method) {
      case 'GET':
        return this.get(req, t);
      case 'PUT':
        return this.put(req, t, mode);
      case 'DELETE':
        return this.delete(t);
      default:
        return errorReply(405, `The method ${req.method} is not supported by the management API.`);
    }
  }

  private get(req: AtomRequest, t: Target): AtomReply {
    const { base, host } = req;
    switch (t.kind) {
      case 'namespace':
        return ok(
          200,
          entry(base, '$namespaceinfo', this.broker.namespace, namespaceInfo(this.broker.namespace, this.startedAt)),
        );
      case 'queues':
        return feed(
          req,
          'Queues',
          this.broker.queueList().map((q) => entry(base, q.name, q.name, queueDescription(q, host))),
        );
      case 'topics':
        return feed(
          req,
          'Topics',
          this.broker.topicList().map((x) => entry(base, x.name, x.name, topicDescription(x))),
        );
      case 'entity': {
        const q = this.broker.findQueue(t.name);
        if (q) return ok(200, entry(base, q.name, q.name, queueDescription(q, host)));
        const topic = this.broker.findTopic(t.name);
        return topic ? ok(200, entry(base, topic.name, topic.name, topicDescription(topic))) : emptyFeed(req);
      }
      case 'subscriptions': {
        const topic = this.broker.findTopic(t.topic);
        const subs = topic ? [...topic.subscriptions.values()] : [];
        return feed(
          req,
          'Subscriptions',
          subs.map((s) =>
            entry(base, `${topic?.name}/Subscriptions/${s.name}`, s.name, subscriptionDescription(s.entity, host)),
          ),
        );
      }
      case 'subscription': {
        const s = this.broker.findTopic(t.topic)?.subscriptions.get(t.name.toLowerCase());
        return s
          ? ok(200, entry(base, `${t.topic}/Subscriptions/${s.name}`, s.name, subscriptionDescription(s.entity, host)))
          : emptyFeed(req);
      }
      case 'rules': {
        const s = this.broker.findTopic(t.topic)?.subscriptions.get(t.subscription.toLowerCase());
        const rules = s ? s.rules.rules : [];
        return feed(
          req,
          'Rules',
          rules.map((r) =>
            entry(base, `${t.topic}/Subscriptions/${t.subscription}/Rules/${r.name}`, r.name, ruleDescription(r)),
          ),
        );
      }
      case 'rule': {
        const r = this.broker
          .findTopic(t.topic)
          ?.subscriptions.get(t.subscription.toLowerCase())
          ?.rules.rules.find((x) => x.name.toLowerCase() === t.name.toLowerCase());
        return r
          ? ok(
              200,
              entry(base, `${t.topic}/Subscriptions/${t.subscription}/Rules/${r.name}`, r.name, ruleDescription(r)),
            )
          : emptyFeed(req);
      }
    }
  }

  private async put(req: AtomRequest, t: Target, mode: PutMode): Promise<AtomReply> {
    const { kind, description } = readEntry(req.body);
    const status = mode === 'create' ? 201 : 200;
    const { base, host } = req;
    if (t.kind === 'entity' && kind === 'QueueDescription') {
      const { settings, facts } = readDescription(description, 'queue');
      const q = await this.manager.putQueue(t.name, settings, facts, mode);
      return ok(status, entry(base, q.name, q.name, queueDescription(q, host)));
    }
    if (t.kind === 'entity' && kind === 'TopicDescription') {
      const { settings, facts } = readDescription(description, 'topic');
      const topic = await this.manager.putTopic(t.name, settings, facts, mode);
      return ok(status, entry(base, topic.name, topic.name, topicDescription(topic)));
    }
    if (t.kind === 'subscription' && kind === 'SubscriptionDescription') {
      const { settings, facts } = readDescription(description, 'subscription');
      const defaultRule = child(description, 'DefaultRuleDescription');
      const first = defaultRule ? readRule(defaultRule, undefined) : undefined;
      const s = await this.manager.putSubscription(t.topic, t.name, settings, facts, mode, first);
      return ok(
        status,
        entry(base, `${t.topic}/Subscriptions/${s.name}`, s.name, subscriptionDescription(s.entity, host)),
      );
    }
    if (t.kind === 'rule' && kind === 'RuleDescription') {
      const r = await this.manager.putRule(t.topic, t.subscription, readRule(description, t.name), mode);
      return ok(
        status,
        entry(base, `${t.topic}/Subscriptions/${t.subscription}/Rules/${r.name}`, r.name, ruleDescription(r)),
      );
    }
    throw brokerErrors.badRequest(`A ${kind} cannot be put at '/${req.path}'.`);
  }

  private async delete(t: Target): Promise<AtomReply> {
    switch (t.kind) {
      case 'entity':
        await this.manager.deleteQueueOrTopic(t.name);
        break;
      case 'subscription':
        await this.manager.deleteSubscription(t.topic, t.name);
        break;
      case 'rule':
        await this.manager.deleteRule(t.topic, t.subscription, t.name);
        break;
      default:
        throw brokerErrors.badRequest('Only a queue, topic, subscription or rule can be deleted.');
    }
    return { status: 200, contentType: ENTRY, body: '' };
  }
}
