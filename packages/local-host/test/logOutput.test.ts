import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogOutput, inInvocation } from '../src/logging/logOutput.js';
import { ThroughputSummary } from '../src/logging/throughputSummary.js';
import { createTelemetry } from 'ledger-convoy/adapters/telemetry';

function sink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write: (chunk: Buffer, _encoding, done) => void (chunks.push(chunk.toString()), done()),
  });
  return { stream, text: () => chunks.join('') };
}

describe("npm start's log output", () => {
  it('holds every line until opened (the banner goes first), then writes them in order as JSON', async () => {
    const out = sink();
    const output = createLogOutput({ pretty: false, stream: out.stream });
    const logger = pino({ level: 'info', base: {} }, output);
    logger.info({ orderId: 'o-1' }, 'first');
    logger.warn('second');
    expect(out.text()).toBe('');
    await output.open();
    logger.info('third');
    expect(
      out
        .text()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { msg: string })
        .map((l) => l.msg),
    ).toEqual(['first', 'second', 'third']);
  });

  it('prints one compact line per entry for a person: time, level, function, order and sequence, outcome, message', async () => {
    const out = sink();
    const output = createLogOutput({ pretty: true, stream: out.stream });
    const logger = pino({ level: 'info', base: { host: 'local' } }, output);
    logger.info(
      {
        function: 'orderProcessor',
        invocationId: 'i-1',
        orderId: 'o-7',
        sequence: 3,
        outcome: 'completed',
        durationMs: 4,
      },
      'message processed',
    );
    logger.warn({ alert: 'GapTooOld', orderId: 'o-8' }, 'alert GapTooOld');
    await output.open();
    const [first, second] = out.text().trim().split('\n');
    expect(first).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: orderProcessor {2}o-7 #3 {2}completed {2}message processed$/,
    );
    expect(second).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: o-8 {2}alert GapTooOld \{"alert":"GapTooOld"\}$/);
  });

  it("names the invocation's function on the app's own lines, written inside it", async () => {
    const out = sink();
    const output = createLogOutput({ pretty: false, stream: out.stream });
    const telemetry = createTelemetry({ level: 'info', destination: output });
    inInvocation({ function: 'orderProcessor', invocationId: 'inv-1' }, () =>
      telemetry.log('warn', 'entry deadLettered', { orderId: 'o-1', sequence: 2 }),
    );
    telemetry.log('info', 'outside', {});
    await output.open();
    const [inside, outside] = out
      .text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(inside).toMatchObject({
      msg: 'entry deadLettered',
      function: 'orderProcessor',
      invocationId: 'inv-1',
      orderId: 'o-1',
      service: 'ledger-convoy',
    });
    expect(outside).not.toHaveProperty('function');
  });
});

describe('the throughput summary', () => {
  it('logs what each function did since the last line, and nothing when nothing happened', () => {
    const out = sink();
    const logger = pino({ level: 'info', base: {} }, out.stream);
    const summary = new ThroughputSummary();
    summary.flush(logger, 10_000);
    expect(out.text()).toBe('');
    for (let i = 0; i < 3; i++) summary.record('orderProcessor', 'completed');
    summary.record('orderProcessor', 'deadLettered');
    summary.record('postLedger', '× 202');
    summary.flush(logger, 10_000);
    summary.flush(logger, 10_000);
    const lines = out
      .text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      msg: 'last 10 s: orderProcessor 3 completed, 1 deadLettered · postLedger 1 × 202',
      functions: { orderProcessor: { completed: 3, deadLettered: 1 }, postLedger: { '× 202': 1 } },
    });
  });
});
