import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type RunningConsole } from '../../src/console/consoleServer.js';
import { consoleTarget } from '../../src/console/consoleTarget.js';
import { SESSION_COOKIE } from '../../src/console/guard.js';
import type { CliSettings } from '../../src/settings.js';
import { COSMOS_EMULATOR_KEY, SERVICE_BUS_EMULATOR_KEY } from '../../src/emulatorKeys.js';
import { startConsoleStack, type ConsoleStack } from './support/consoleStack.js';

/** A browser of one: keeps the session cookie, reads the CSRF token off a page, posts forms. */
class Browser {
  cookie: string | undefined;
  constructor(readonly base: string) {}

  async get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    const response = await fetch(new URL(path, this.base), {
      redirect: 'manual',
      headers: { ...headers, ...(this.cookie ? { cookie: this.cookie } : {}) },
    });
    const set = response.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0];
    return response;
  }

  async csrf(path = '/dead-letters'): Promise<string> {
    const text = await (await this.get(path)).text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
    if (!token) throw new Error(`no CSRF field on ${path}`);
    return token;
  }

  post(path: string, fields: Record<string, string>): Promise<Response> {
    return fetch(new URL(path, this.base), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(this.cookie ? { cookie: this.cookie } : {}) },
      body: new URLSearchParams(fields),
    });
  }
}

const PAGES = ['/', '/dead-letters', '/dead-letters?queue=ledger', '/orders', '/orders/o-none', '/outbox'];

describe('the operator console on the local stack: CSRF, Host header, secrets', () => {
  let stack: ConsoleStack;
  beforeAll(async () => {
    stack = await startConsoleStack();
  }, 60_000);
  afterAll(async () => stack?.close());

  it('listens on loopback without a token and gives each browser a session cookie', async () => {
    const browser = new Browser(stack.console.url);
    expect(stack.console.token).toBeUndefined();
    expect(stack.console.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const response = await browser.get('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toMatch(
      new RegExp(`^${SESSION_COOKIE}=[^;]+;.*HttpOnly.*SameSite=Strict`, 'i'),
    );
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it("refuses a POST without the session's CSRF token, or with another session's, and changes nothing", async () => {
    const alice = new Browser(stack.console.url);
    const mallory = new Browser(stack.console.url);
    const aliceToken = await alice.csrf();
    await mallory.csrf();
    const none = await mallory.post('/dead-letters/orders/purge', { confirm: 'orders' });
    const stolen = await mallory.post('/dead-letters/orders/purge', { _csrf: aliceToken, confirm: 'orders' });
    const cookieless = await new Browser(stack.console.url).post('/dead-letters/orders/purge', {
      _csrf: aliceToken,
      confirm: 'orders',
    });
    expect([none.status, stolen.status, cookieless.status]).toEqual([403, 403, 403]);
    expect(await none.text()).toMatch(/CSRF/);
    // With its own token the same form is taken (and here asks for the typed confirmation).
    const own = await alice.post('/dead-letters/orders/purge', { _csrf: aliceToken, confirm: 'not-the-queue' });
    expect(own.status).toBe(303);
    expect(await (await alice.get('/dead-letters')).text()).toContain('Not purged: type orders to confirm.');
  });

  it('answers only to its own host names on loopback (no DNS rebinding)', async () => {
    // fetch will not send another Host header: a raw request does, as a browser tricked by DNS rebinding would.
    const status = (host: string) =>
      new Promise<number | undefined>((resolve, reject) => {
        const url = new URL(stack.console.url);
        request({ host: url.hostname, port: url.port, path: '/', headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode);
        })
          .on('error', reject)
          .end();
      });
    expect(await status('attacker.example')).toBe(421);
    expect(await status(`localhost:${new URL(stack.console.url).port}`)).toBe(200);
  });

  it('sends no key or connection string to the page, on any page, errors included', async () => {
    const browser = new Browser(stack.console.url);
    const secrets = [
      SERVICE_BUS_EMULATOR_KEY,
      COSMOS_EMULATOR_KEY,
      stack.serviceBusConnection,
      stack.host.settings.CosmosConnection!,
    ];
    for (const path of [...PAGES, '/dead-letters/orders/999999', '/?live=1']) {
      const response = await browser.get(path);
      expect(response.status, path).toBe(200);
      const text = await response.text();
      for (const secret of secrets) expect(text.includes(secret), `${path} shows a secret`).toBe(false);
      expect(text).not.toMatch(/SharedAccessKey=|AccountKey=/);
    }
  });
});

describe('the operator console against a deployed system', () => {
  const key = 'c2VjcmV0LWtleS1vZi1hLXJlYWwtbmFtZXNwYWNlLXRoYXQtbXVzdC1ub3QtbGVhaw==';
  const cosmosKey = 'Y29zbW9zLWtleS10aGF0LW11c3Qtbm90LWxlYWstdG8tdGhlLXBhZ2UtZXZlcg==';
  // Nothing listens on port 9: every read fails at once, and the errors must be shown without the keys.
  const settings: CliSettings = Object.freeze({
    app: Object.freeze({
      ServiceBusConnection: `Endpoint=sb://127.0.0.1:9/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${key}`,
      CosmosConnection: `AccountEndpoint=https://127.0.0.1:9/;AccountKey=${cosmosKey};`,
    }),
    httpBaseUrl: 'http://127.0.0.1:9',
    functionKey: 'function-key-that-must-not-leak',
    embeddedDefaults: [],
  });
  let readOnly: RunningConsole;
  let remote: RunningConsole;
  beforeAll(async () => {
    readOnly = await startConsole({ target: consoleTarget(settings), port: 0, sampleIntervalMs: 60_000 });
    // Another interface than loopback: the console then asks for its token.
    remote = await startConsole({
      target: consoleTarget(settings),
      port: 0,
      host: '0.0.0.0',
      allowWrite: true,
      sampleIntervalMs: 60_000,
    });
  });
  afterAll(async () => {
    await readOnly?.close();
    await remote?.close();
  });

  it('is read-only without --allow-write: the page says so and every change answers 403', async () => {
    const browser = new Browser(readOnly.url);
    expect(readOnly.writable).toBe(false);
    const page = await (await browser.get('/dead-letters')).text();
    expect(page).toContain('read-only: the target is a deployed system');
    expect(page).not.toContain('name="confirm"');
    const csrf = /name="_csrf" value="([^"]+)"|data-csrf="([^"]+)"/.exec(page);
    expect(csrf).toBeNull();
    const token = await browser.csrf('/orders/o-1').catch(() => undefined);
    expect(token).toBeUndefined();
  });

  it('refuses every change when read-only, before anything else is looked at', async () => {
    const browser = new Browser(readOnly.url);
    await browser.get('/orders');
    for (const path of [
      '/outbox/o-1/release',
      '/outbox/o-1/discard',
      '/dead-letters/orders/purge',
      '/dead-letters/orders/1/resubmit',
      '/orders/o-1/rejected/2/resubmit',
    ]) {
      const response = await browser.post(path, { confirm: 'orders' });
      expect(response.status, path).toBe(403);
      expect(await response.text()).toMatch(
        /^Read-only: the target is a deployed system; start the console with --allow-write/,
      );
    }
  });

  it('needs the printed token beyond loopback, once, then keeps the session in a cookie', async () => {
    const port = new URL(remote.url).port;
    const base = `http://127.0.0.1:${port}/`;
    expect(remote.url).toMatch(/\?token=[A-Za-z0-9_-]{32}$/);
    expect((await new Browser(base).get('/')).status).toBe(401);
    expect((await new Browser(base).get('/?token=wrong')).status).toBe(401);
    const browser = new Browser(base);
    const entry = await browser.get(`/?token=${remote.token}`);
    expect(entry.status).toBe(303);
    expect(entry.headers.get('location')).toBe('/');
    const page = await browser.get('/dead-letters');
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text.includes(remote.token!)).toBe(false);
    // Writable here (--allow-write): the purge form is offered, and its CSRF token works for this session only.
    expect(text).toContain('name="confirm"');
  });

  it("shows the broker's and the store's errors on the page, without the keys", async () => {
    const port = new URL(remote.url).port;
    const browser = new Browser(`http://127.0.0.1:${port}/`);
    await browser.get(`/?token=${remote.token}`);
    for (const path of ['/dead-letters', '/outbox', '/orders/o-1']) {
      const text = await (await browser.get(path)).text();
      expect(text, path).toMatch(/class="error" role="alert"/);
      for (const secret of [key, cosmosKey, 'function-key-that-must-not-leak', remote.token!])
        expect(text.includes(secret), `${path} shows a secret`).toBe(false);
    }
  }, 60_000);
});
