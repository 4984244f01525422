import { badRequest, notFound, preconditionFailed } from '../errors/errorFactory.js';
import type { Reply } from '../http/reply.js';
import { json } from '../http/reply.js';
import type { RequestContext } from '../http/requestContext.js';
import { header, jsonObjectBody } from '../http/requestContext.js';
import type { AccountStore } from '../store/accountStore.js';
import { MetadataType } from '../store/metadataStore.js';
import type { MetadataResource } from '../store/metadataStore.js';
import { epochSeconds, newEtag, newOfferRid } from '../store/resources.js';
import type { JsonObject } from '../store/types.js';
import { feedReply } from './feed.js';

/*
 * Offers: the provisioned throughput of a database (shared) or a container, as the service reports it
 * (`offerVersion` V2, manual or autoscale). The emulator does not throttle by them (only `--throughput` does, see
 * `throughputBudget.ts`); they are kept so that code reading or changing throughput works as against Azure.
 */

/** Throughput a create request provisions: manual RU/s, or autoscale with its maximum. */
export type Throughput = { manual: number } | { autoscaleMax: number; autoUpgradePolicy?: unknown };

/** RU/s of a container that asks for none, in a database without shared throughput. */
const DEFAULT_THROUGHPUT: Throughput = { manual: 400 };

function manual(value: unknown): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 400 || n % 100 !== 0)
    throw badRequest(
      `The offer throughput ${String(value)} is invalid: it must be a multiple of 100, at least 400 RU/s.`,
    );
  return n;
}

function autoscaleMax(value: unknown): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1000 || n % 1000 !== 0)
    throw badRequest(
      `The autoscale maximum throughput ${String(value)} is invalid: it must be a multiple of 1000, at least 1000 RU/s.`,
    );
  return n;
}

/** The throughput a database or container create asks for (`x-ms-offer-throughput` or the autoscale settings header). @throws 400 */
export function requestedThroughput(ctx: RequestContext): Throughput | undefined {
  const fixed = header(ctx, 'x-ms-offer-throughput');
  const autoscale = header(ctx, 'x-ms-cosmos-offer-autopilot-settings');
  if (fixed !== undefined && autoscale !== undefined)
    throw badRequest('Specify either a throughput or autoscale settings, not both.');
  if (fixed !== undefined) return { manual: manual(fixed) };
  if (autoscale === undefined) return undefined;
  let settings: { maxThroughput?: unknown; autoUpgradePolicy?: unknown };
  try {
    settings = JSON.parse(autoscale) as typeof settings;
  } catch {
    throw badRequest('The autoscale settings header is not JSON.');
  }
  return {
    autoscaleMax: autoscaleMax(settings.maxThroughput),
    ...(settings.autoUpgradePolicy !== undefined && { autoUpgradePolicy: settings.autoUpgradePolicy }),
  };
}

function content(throughput: Throughput): JsonObject {
  const base = {
    offerIsRUPerMinuteThroughputEnabled: false,
    offerMinimumThroughputParameters: { maxThroughputEverProvisioned: 400, maxConsumedStorageEverInKB: 0 },
  };
  if ('manual' in throughput) return { offerThroughput: throughput.manual, ...base };
  const settings = {
    maxThroughput: throughput.autoscaleMax,
    ...(throughput.autoUpgradePolicy !== undefined && { autoUpgradePolicy: throughput.autoUpgradePolicy }),
  };
  return { offerThroughput: throughput.autoscaleMax / 10, ...base, offerAutopilotSettings: settings };
}

/**
 * Provisions throughput for a database or container just created: what the request asks for, else (for a
 * container in a database without shared throughput) the default 400 RU/s.
 */
export async function provisionThroughput(
  store: AccountStore,
  target: { _rid: string; _self: string },
  throughput: Throughput | undefined,
  isContainer: boolean,
  dbRid: string,
): Promise<void> {
  await store.changeMetadata(() => {
    const sharedByDatabase = store.metadata.list('', MetadataType.Offers).some((o) => o['offerResourceId'] === dbRid);
    const chosen = throughput ?? (isContainer && !sharedByDatabase ? DEFAULT_THROUGHPUT : undefined);
    if (chosen === undefined) return { records: [], result: undefined };
    const existing = new Set(store.metadata.list('', MetadataType.Offers).map((o) => o.id));
    let id = newOfferRid();
    while (existing.has(id)) id = newOfferRid();
    const offer: MetadataResource = {
      id,
      _rid: id,
      _self: `offers/${id}/`,
      _etag: newEtag(),
      _ts: epochSeconds(Date.now()),
      offerVersion: 'V2',
      offerType: 'Invalid',
      resource: target._self,
      offerResourceId: target._rid,
      content: content(chosen),
    };
    return { records: [{ k: 'meta', parent: '', type: MetadataType.Offers, id, res: offer }], result: undefined };
  });
}

/** `GET|POST(query) /offers`. */
export function listOffers(ctx: RequestContext, store: AccountStore): Reply {
  return feedReply(ctx, store.metadata.list('', MetadataType.Offers), 'Offers', '');
}

function offer(store: AccountStore, id: string): MetadataResource {
  const found = store.metadata.get('', MetadataType.Offers, id);
  if (found === undefined) throw notFound('Offer');
  return found;
}

/** `GET /offers/{id}`. */
export function readOffer(id: string, store: AccountStore): Reply {
  const res = offer(store, id);
  return json(200, res, { etag: res._etag });
}

/** `PUT /offers/{id}`: changes the throughput (manual RU/s, or the autoscale maximum); 400 when the body names another offer. */
export async function replaceOffer(ctx: RequestContext, id: string, store: AccountStore): Promise<Reply> {
  const body = jsonObjectBody(ctx);
  const res = await store.changeMetadata(() => {
    const current = offer(store, id);
    if (body['id'] !== id || body['_rid'] !== current._rid)
      throw badRequest(`The offer's id and _rid must be those of offer '${id}'.`);
    const ifMatch = header(ctx, 'if-match');
    if (ifMatch !== undefined && ifMatch !== '*' && ifMatch !== current._etag) throw preconditionFailed();
    const requested = (body['content'] ?? {}) as {
      offerThroughput?: unknown;
      offerAutopilotSettings?: { maxThroughput?: unknown; autoUpgradePolicy?: unknown };
    };
    const throughput: Throughput =
      requested.offerAutopilotSettings?.maxThroughput !== undefined
        ? {
            autoscaleMax: autoscaleMax(requested.offerAutopilotSettings.maxThroughput),
            autoUpgradePolicy: requested.offerAutopilotSettings.autoUpgradePolicy,
          }
        : { manual: manual(requested.offerThroughput) };
    const replaced: MetadataResource = {
      ...current,
      content: content(throughput),
      _etag: newEtag(),
      _ts: epochSeconds(Date.now()),
    };
    return { records: [{ k: 'meta', parent: '', type: MetadataType.Offers, id, res: replaced }], result: replaced };
  });
  return json(200, res, { etag: res._etag });
}
