/**
 * `POST /api/ledgers`: validates a ledger and enqueues it to `ledger` for the splitter.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { isServiceBusError } from '@azure/service-bus';
import { inSendSpan, inServerSpan, traceProperties } from '../adapters/telemetryTraceContext.js';
import { isTraceparent } from '../core/traceContext.js';
import { LEDGER_MAX_BYTES } from '../core/schemas/limits.js';
import { validateLedger } from '../core/schemas/ledger.js';
import { CoreErrorCode } from '../core/errors.js';
import { QueueName } from '../core/queueNames.js';
import { defineFunction, type AppContext } from './appContext.js';
import { unavailableOrRethrow } from './httpErrors.js';

function tooLarge(bytes: number): HttpResponseInit {
  return {
    status: 413,
    jsonBody: {
      error: 'PayloadTooLarge',
      message: `The ledger is ${bytes} bytes; at most ${LEDGER_MAX_BYTES} are accepted`,
    },
  };
}

/**
 * - 413 when `Content-Length` or the body actually read exceeds 262,144 bytes (the Standard tier's message size);
 * - 400 `{ error: 'SchemaValidationFailed', issues: [{ path, message }] }` for a body that is not UTF-8 JSON or
 *   fails the ledger rules (rule 9's validation, so nothing invalid reaches the queue);
 * - 202 `{ ledgerId, entries }` once the ledger is on the `ledger` queue, sent with `messageId = ledgerId`,
 *   `contentType: application/json` and the W3C trace context of its send span (child of the request's server span,
 *   itself a child of the request's `traceparent`) in `traceparent` / `Diagnostic-Id`;
 * - 503 when Service Bus is busy or unreachable.
 * @internal
 */
export async function postLedger(
  app: AppContext,
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > LEDGER_MAX_BYTES) return tooLarge(declared);
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength > LEDGER_MAX_BYTES) return tooLarge(bytes.byteLength);

  const validated = validateLedger(bytes);
  if (!validated.ok)
    return { status: 400, jsonBody: { error: CoreErrorCode.SchemaValidationFailed, issues: validated.issues } };
  const ledger = validated.value;

  const incoming = context.traceContext?.traceParent ?? request.headers.get('traceparent') ?? undefined;
  return inServerSpan(
    'POST',
    '/api/ledgers',
    isTraceparent(incoming) ? incoming : undefined,
    async (span): Promise<HttpResponseInit> => {
      try {
        // The splitter's span is a child of this send's: one trace from the request to the order events.
        const traceparent = await inSendSpan(QueueName.Ledger, { messageId: ledger.ledgerId }, span, async (tp) => {
          await app.sender(QueueName.Ledger).sendMessages({
            messageId: ledger.ledgerId,
            contentType: 'application/json',
            body: ledger,
            applicationProperties: traceProperties(tp),
          });
          return tp;
        });
        app.telemetry.log('debug', 'ledger accepted', {
          ledgerId: ledger.ledgerId,
          entries: ledger.entries.length,
          outcome: 'accepted',
          traceparent,
        });
        return { status: 202, jsonBody: { ledgerId: ledger.ledgerId, entries: ledger.entries.length } };
      } catch (error) {
        if (isServiceBusError(error) && error.code === 'MessageSizeExceeded') return tooLarge(bytes.byteLength);
        return unavailableOrRethrow(error);
      }
    },
  );
}

/** The function: `POST /api/ledgers` with a function key. */
export const postLedgerFunction = defineFunction('http', 'postLedger', postLedger, {
  route: 'ledgers',
  methods: ['POST'],
  authLevel: 'function',
});
