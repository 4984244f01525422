import { ZodError } from 'zod';
import type { RequestCounters } from '../counters.js';
import { badRequest, notFound } from '../errors/errorFactory.js';
import type { FaultInjector } from '../faults.js';
import type { Reply } from './reply.js';
import { json } from './reply.js';
import type { RequestContext } from './requestContext.js';
import { jsonBody } from './requestContext.js';

/** Prefix of the emulator's own (unsigned, loopback-only) control routes. */
export const ADMIN_PREFIX = '_emulator';

/**
 * Control routes, not part of the Cosmos API:
 * - `GET /_emulator/counters` → request counts by operation kind, and under `requestUnits` the request units they
 *   charged by kind (see `requestCharge.ts`); `DELETE` resets both.
 * - `GET /_emulator/faults` → active fault rules; `POST` adds one (see `faults.ts`); `DELETE` clears all.
 */
export function handleAdmin(ctx: RequestContext, counters: RequestCounters, faults: FaultInjector): Reply {
  const [, resource] = ctx.address.segments;
  if (resource === 'counters') {
    if (ctx.method === 'GET') return json(200, counters.snapshot());
    if (ctx.method === 'DELETE') {
      counters.reset();
      return { status: 204 };
    }
  }
  if (resource === 'faults') {
    if (ctx.method === 'GET') return json(200, faults.list());
    if (ctx.method === 'DELETE') {
      faults.clear();
      return { status: 204 };
    }
    if (ctx.method === 'POST') {
      try {
        return json(201, faults.add(jsonBody(ctx)));
      } catch (error) {
        if (error instanceof ZodError)
          throw badRequest(
            `Invalid fault rule: ${error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
          );
        throw error;
      }
    }
  }
  throw notFound('Admin route');
}
