import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';

/** The cookie that carries a browser's console session. @internal */
export const SESSION_COOKIE = 'convoy_console';
/** The form field every POST carries: the session's CSRF token. */
export const CSRF_FIELD = '_csrf';
/** Most sessions kept (oldest dropped first): a console has a handful of operators. */
const MAX_SESSIONS = 200;

/** One browser's session: its CSRF token and the notes to show on its next page. */
export interface ConsoleSession {
  readonly id: string;
  readonly csrf: string;
  flash: Flash[];
}

/** A note shown once on the next page: what an action did, or why it failed. */
export interface Flash {
  kind: 'done' | 'error';
  text: string;
}

/** Options of {@link consoleGuard}. */
export interface GuardOptions {
  /** The token a browser must present once (`?token=`); undefined when the console listens on loopback only. */
  token: string | undefined;
  /** Host headers accepted (`127.0.0.1:7072`, …); undefined accepts any (a console bound to another interface). */
  allowedHosts: ReadonlySet<string> | undefined;
  /** Whether POSTs may change anything (else every POST answers 403 saying it is read-only). */
  writable: boolean;
  /** Why it is read-only, for the 403. */
  readOnlyReason: string;
}

/** A fresh random token, URL-safe. */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The guard's Hono variables. */
export interface GuardVariables {
  session: ConsoleSession;
}

/**
 * The console's safety checks, before any page: the Host header (a loopback console answers only to its own
 * names, so a web page elsewhere cannot reach it through DNS rebinding); the token, once, when it listens beyond
 * loopback (then a session cookie); and on every POST the session's CSRF token and the read-only switch.
 */
export function consoleGuard(options: GuardOptions): MiddlewareHandler<{ Variables: GuardVariables }> {
  const sessions = new Map<string, ConsoleSession>();
  const create = (c: Context): ConsoleSession => {
    const session: ConsoleSession = { id: newToken(), csrf: newToken(), flash: [] };
    sessions.set(session.id, session);
    if (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value as string);
    setCookie(c, SESSION_COOKIE, session.id, { httpOnly: true, sameSite: 'Strict', path: '/' });
    return session;
  };
  return async (c, next) => {
    if (options.allowedHosts && !options.allowedHosts.has(c.req.header('host') ?? '')) {
      return c.text('This console answers only to the address it printed at start.', 421);
    }
    const cookie = getCookie(c, SESSION_COOKIE);
    let session = cookie === undefined ? undefined : sessions.get(cookie);
    if (options.token !== undefined) {
      const offered = c.req.query('token');
      if (offered !== undefined) {
        if (!sameSecret(offered, options.token))
          return c.text('Wrong token: use the URL the console printed at start.', 401);
        session ??= create(c);
        // Take the token out of the address bar (and of the history) once the cookie holds the session.
        const url = new URL(c.req.url);
        url.searchParams.delete('token');
        return c.redirect(`${url.pathname}${url.search}`, 303);
      }
      if (!session)
        return c.text('This console needs the token it printed at start: open the URL it printed (…/?token=…).', 401);
    }
    session ??= create(c);
    c.set('session', session);
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      if (!options.writable) return c.text(`Read-only: ${options.readOnlyReason}`, 403);
      const form = await c.req.parseBody();
      const csrf = form[CSRF_FIELD];
      if (typeof csrf !== 'string' || !sameSecret(csrf, session.csrf)) {
        return c.text('Missing or wrong CSRF token: reload the page and try again.', 403);
      }
    }
    await next();
  };
}

function sameSecret(offered: string, expected: string): boolean {
  const a = Buffer.from(offered);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
