import { setTimeout as sleep } from 'node:timers/promises';
import type { Ledger, OrderView } from 'ledger-convoy/core';
import { CliError } from './errors.js';
import type { CliSettings } from './settings.js';
import { errorMessage } from 'ledger-convoy/core';

/** Options of {@link FunctionApi}. */
export interface FunctionApiOptions {
  /** Per-request timeout. @default 15000 */
  timeoutMs?: number;
  /** Further tries after a 503 (a throttled or unreachable store), each after its `Retry-After` (at most 10 s). @default 3 */
  retries?: number;
}

/** The function app's HTTP API (`/api/orders/{id}`, `/api/ledgers`), with errors that say what to do. */
export class FunctionApi {
  private readonly timeoutMs: number;
  private readonly retries: number;

  constructor(
    private readonly settings: Pick<CliSettings, 'httpBaseUrl' | 'functionKey'>,
    options: FunctionApiOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.retries = options.retries ?? 3;
  }

  /** `GET /api/orders/{orderId}`: the order's view, or `undefined` on 404. */
  async getOrder(orderId: string): Promise<OrderView | undefined> {
    const response = await this.request('GET', `/api/orders/${encodeURIComponent(orderId)}`);
    return this.orderOf(response, orderId);
  }

  /**
   * {@link getOrder}, or `'busy'` when the app still answers 503 after the retries: its store is throttled, which
   * under a backlog may last for minutes — for a caller that polls anyway, a reason to look again, not an error.
   */
  async getOrderUnlessBusy(orderId: string): Promise<OrderView | undefined | 'busy'> {
    const response = await this.request('GET', `/api/orders/${encodeURIComponent(orderId)}`);
    if (response.status !== 503) return this.orderOf(response, orderId);
    await response.body?.cancel();
    return 'busy';
  }

  private async orderOf(response: Response, orderId: string): Promise<OrderView | undefined> {
    if (response.status === 404) return undefined;
    if (response.status !== 200) throw await this.unexpected(response, `GET /api/orders/${orderId}`);
    return (await response.json()) as OrderView;
  }

  /** `POST /api/ledgers`; resolves on 202, throws with the API's issues otherwise. */
  async postLedger(ledger: Ledger): Promise<void> {
    const response = await this.request('POST', '/api/ledgers', JSON.stringify(ledger));
    if (response.status !== 202) throw await this.unexpected(response, `POST /api/ledgers (${ledger.ledgerId})`);
    await response.body?.cancel();
  }

  /** {@link send}, tried again after a 503 as its `Retry-After` says: the app's answer when a store is throttled. */
  private async request(method: string, path: string, body?: string): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const response = await this.send(method, path, body);
      if (response.status !== 503 || attempt >= this.retries) return response;
      await response.body?.cancel();
      const seconds = Number(response.headers.get('retry-after') ?? 'none');
      await sleep(Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, 10) * 1000 : 1000);
    }
  }

  private async send(method: string, path: string, body?: string): Promise<Response> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.settings.functionKey) headers['x-functions-key'] = this.settings.functionKey;
    const url = `${this.settings.httpBaseUrl}${path}`;
    try {
      return await fetch(url, { method, headers, body, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (error) {
      throw new CliError(
        'Http',
        `Cannot reach the function app at ${this.settings.httpBaseUrl} (${causeText(error)}).`,
        'Start it with `npm start` (or `func start`), or pass --http <base url>.',
        { cause: error },
      );
    }
  }

  private async unexpected(response: Response, what: string): Promise<CliError> {
    const text = (await response.text().catch(() => '')).slice(0, 500);
    const hint =
      response.status === 401 || response.status === 403
        ? 'Pass the function key with --function-key (or $CONVOY_FUNCTION_KEY).'
        : response.status === 404
          ? 'Is --http pointing at the Ledger Convoy function app?'
          : undefined;
    return new CliError('Http', `${what} answered ${response.status}${text ? `: ${text}` : ''}`, hint);
  }
}

function causeText(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  return cause?.code ?? cause?.message ?? errorMessage(error);
}
