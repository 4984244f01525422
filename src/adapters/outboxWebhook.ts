/**
 * Posts order events to a webhook (`OUTBOX_WEBHOOK_URL`): the event as its body (a structured CloudEvent), its key as
 * `Idempotency-Key` so the receiver can dedupe a re-delivery, the W3C `traceparent` header, and — with `OUTBOX_WEBHOOK_SECRET` — a Standard Webhooks signature
 * (`webhook-id` = the key, `webhook-timestamp`, `webhook-signature`), so the receiver can tell our POSTs from anyone's.
 * Anything but a 2xx answer, a network error or a timeout fails the attempt for that order.
 */
import { Webhook } from 'standardwebhooks';
import {
  OutboxDeliveryError,
  OutboxErrorCode,
  WEBHOOK_TIMEOUT_DEFAULT_MS,
  type OrderEventWebhook,
  type OutboundOrderEvent,
  type OutboxConfig,
} from '../core/index.js';
import { inHttpClientSpan } from './telemetryTraceContext.js';

/** Options of {@link WebhookOrderEventPoster}. */
export interface WebhookPosterOptions {
  url: string;
  /** The Standard Webhooks signing secret (`whsec_` + base64, `OUTBOX_WEBHOOK_SECRET`); unsigned without. @default none */
  secret?: string | undefined;
  /** Longest time one POST may take. @default 10000 */
  timeoutMs?: number | undefined;
}

/** The webhook `config` names (`OUTBOX_WEBHOOK_URL`, its timeout and secret), or none without a URL. */
export function webhookOf(
  config: Pick<OutboxConfig, 'webhookUrl' | 'webhookTimeoutMs' | 'webhookSecret'>,
): WebhookOrderEventPoster | undefined {
  const { webhookUrl: url, webhookTimeoutMs: timeoutMs, webhookSecret: secret } = config;
  return url === undefined ? undefined : new WebhookOrderEventPoster({ url, timeoutMs, secret });
}

/** {@link OrderEventWebhook} over `fetch`. */
export class WebhookOrderEventPoster implements OrderEventWebhook {
  private readonly signer: Webhook | undefined;

  /** @throws Error when `secret` is not a Standard Webhooks secret (base64, optionally `whsec_`-prefixed). */
  constructor(private readonly options: WebhookPosterOptions) {
    this.signer = options.secret === undefined ? undefined : new Webhook(options.secret);
  }

  async post(event: OutboundOrderEvent, signal: AbortSignal): Promise<void> {
    let status: number;
    try {
      status = await inHttpClientSpan(this.options.url, event.traceparent, async (traceparent) => {
        const body = JSON.stringify(event.body);
        const response = await fetch(this.options.url, {
          method: 'POST',
          headers: {
            'content-type': event.contentType,
            'idempotency-key': event.messageId,
            ...(traceparent !== undefined && { traceparent }),
            ...this.signature(event.messageId, body),
          },
          body,
          signal: AbortSignal.any([signal, AbortSignal.timeout(this.options.timeoutMs ?? WEBHOOK_TIMEOUT_DEFAULT_MS)]),
        });
        // Drain the body so the connection can be reused.
        await response.arrayBuffer().catch(() => undefined);
        return response.status;
      });
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new OutboxDeliveryError(
        OutboxErrorCode.TargetRejected,
        `webhook POST of ${event.messageId} failed: ${message}`,
        { cause: error },
      );
    }
    if (status < 200 || status > 299)
      throw new OutboxDeliveryError(OutboxErrorCode.TargetRejected, `webhook answered HTTP ${status}`);
  }

  /** The Standard Webhooks headers of one delivery, signed over exactly the bytes sent; none without a secret. */
  private signature(id: string, body: string): Record<string, string> {
    if (this.signer === undefined) return {};
    const at = new Date();
    return {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': this.signer.sign(id, at, body),
    };
  }
}
