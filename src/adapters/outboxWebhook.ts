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
  type OrderEventWebhook,
  type OutboundOrderEvent,
  type OutboxConfig,
} from '../core/index.js';
import { inHttpClientSpan } from './telemetryTraceContext.js';

/** The webhook's settings: `OUTBOX_WEBHOOK_URL`, `OUTBOX_WEBHOOK_TIMEOUT` and `OUTBOX_WEBHOOK_SECRET`. */
type WebhookConfig = Pick<OutboxConfig, 'webhookUrl' | 'webhookTimeoutMs' | 'webhookSecret'>;

/**
 * The webhook `config` names, or none without a URL.
 * @throws Error when the secret is not a Standard Webhooks secret (base64, optionally `whsec_`-prefixed).
 */
export function webhookOf(config: WebhookConfig): WebhookOrderEventPoster | undefined {
  return config.webhookUrl === undefined ? undefined : new WebhookOrderEventPoster(config.webhookUrl, config);
}

/** {@link OrderEventWebhook} over `fetch`; signed with the Standard Webhooks secret when there is one. */
export class WebhookOrderEventPoster implements OrderEventWebhook {
  private readonly signer: Webhook | undefined;

  constructor(
    private readonly url: string,
    private readonly config: Omit<WebhookConfig, 'webhookUrl'>,
  ) {
    this.signer = config.webhookSecret === undefined ? undefined : new Webhook(config.webhookSecret);
  }

  async post(event: OutboundOrderEvent, signal: AbortSignal): Promise<void> {
    let status: number;
    try {
      status = await inHttpClientSpan(this.url, event.traceparent, async (traceparent) => {
        const body = JSON.stringify(event.body);
        const response = await fetch(this.url, {
          method: 'POST',
          headers: {
            'content-type': event.contentType,
            'idempotency-key': event.messageId,
            ...(traceparent !== undefined && { traceparent }),
            ...this.signature(event.messageId, body),
          },
          body,
          signal: AbortSignal.any([signal, AbortSignal.timeout(this.config.webhookTimeoutMs)]),
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
