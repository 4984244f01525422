import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookOf } from '../../src/adapters/outboxWebhook.js';
import { type OutboundOrderEvent } from '../../src/core/index.js';
import { initialOrderState } from '../../src/core/order/orderState.js';
import { CLOUDEVENTS_JSON, orderCloudEvent } from '../../src/core/outbox/orderCloudEvent.js';

/** A webhook receiver that records each POST as it arrived. */
let server: Server;
let url: string;
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
const SECRET = `whsec_${Buffer.from('a signing secret of thirty-two bytes!').toString('base64')}`;

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function outbound(): OutboundOrderEvent {
  const orderId = 'Bestellung/ä 1';
  const order = {
    ...initialOrderState(),
    status: 'open' as const,
    customerId: 'c-9',
    currency: 'EUR',
    lastSequence: 7,
    total: 5,
    transactionCount: 1,
  };
  const change = { transactionId: 't-1', amount: 5 };
  const { event, key } = orderCloudEvent({
    orderId,
    entryId: 'e-7',
    sequence: 7,
    type: 'TransactionAdded',
    change,
    order,
    committedAt: '2025-01-01T00:00:00.000Z',
    traceparent: undefined,
  });
  return {
    messageId: key,
    sessionId: orderId,
    subject: event.type,
    correlationId: 'L-1',
    contentType: CLOUDEVENTS_JSON,
    applicationProperties: { sequence: 7, type: 'TransactionAdded' },
    body: event,
    traceparent: undefined,
  };
}

/** The poster of `OUTBOX_WEBHOOK_URL` = the test's receiver, with `OUTBOX_WEBHOOK_SECRET` = `secret`. */
function poster(secret?: string) {
  return webhookOf({ webhookUrl: url, webhookTimeoutMs: 5_000, webhookSecret: secret })!;
}

describe('the webhook poster', () => {
  it("posts the CloudEvent with its key and a Standard Webhooks signature the library's verifier accepts", async () => {
    // Prepare
    received.length = 0;
    const signed = poster(SECRET);
    const event = outbound();
    // Act
    await signed.post(event, AbortSignal.timeout(5_000));
    // Assess
    const [delivery] = received;
    expect(delivery?.headers).toMatchObject({
      'content-type': 'application/cloudevents+json',
      'idempotency-key': 'evt-3820c5b73f4384049ccd4278241f5f16',
      'webhook-id': 'evt-3820c5b73f4384049ccd4278241f5f16',
    });
    expect(JSON.parse(delivery!.body)).toEqual(event.body);
    const headers = {
      'webhook-id': String(delivery!.headers['webhook-id']),
      'webhook-timestamp': String(delivery!.headers['webhook-timestamp']),
      'webhook-signature': String(delivery!.headers['webhook-signature']),
    };
    expect(new Webhook(SECRET).verify(delivery!.body, headers)).toEqual(event.body);
    expect(() =>
      new Webhook(`whsec_${Buffer.from('another secret').toString('base64')}`).verify(delivery!.body, headers),
    ).toThrow(/signature/i);
  });

  it('signs nothing without a secret', async () => {
    // Prepare
    received.length = 0;
    // Act
    await poster().post(outbound(), AbortSignal.timeout(5_000));
    // Assess
    expect(received[0]?.headers['webhook-signature']).toBeUndefined();
  });

  it('refuses a secret that is not base64 when it is built', () => {
    expect(() => poster('whsec_not*base64!')).toThrow();
  });
});
