import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AdminServer } from '@ledger-convoy/servicebus-emulator';
import { readExpectation } from '../src/expectation.js';
import { generateRun, type GenerateOptions } from '../src/generator.js';
import { runSend, sendSchedule } from '../src/send.js';
import { peekAll } from '../src/serviceBus.js';
import { runSessions } from '../src/sessions.js';
import { resolveCliSettings } from '../src/settings.js';
import { startCliBus, type CliTestBus } from './support.js';

const shape: GenerateOptions = {
  orders: 6,
  entries: 4,
  ledgers: 3,
  duplicates: 0.5,
  conflicts: 1,
  poison: 4,
  gaps: 1,
  seed: 7,
};

describe('convoy send --to queue against the Service Bus emulator', () => {
  let bus: CliTestBus;
  beforeEach(async () => {
    bus = await startCliBus();
  });
  afterEach(async () => bus.close());

  it('sends every ledger once (re-sends dropped by duplicate detection), the poison to its queues, and writes the expectation', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'convoy-send-')), 'expected.json');
    const report = await runSend({ ...shape, to: 'queue', out, settings: bus.settings });
    const plan = generateRun(shape);
    expect(report.sent).toBe(plan.sends.length);
    expect(plan.counts.resentLedgers).toBeGreaterThan(0);

    const ledgerQueue = await peekAll(bus.client, 'ledger');
    const planned = plan.sends.filter((s) => s.kind === 'ledger' && !s.resend);
    const badLedgers = plan.sends.filter((s) => s.kind === 'poison' && s.queue === 'ledger');
    // Duplicate detection keeps one copy per ledgerId.
    expect(ledgerQueue).toHaveLength(planned.length + badLedgers.length);
    for (const send of planned) {
      if (send.kind !== 'ledger') continue;
      const message = ledgerQueue.find((m) => m.messageId === send.ledger.ledgerId);
      expect(message?.contentType).toBe('application/json');
      expect(message?.body).toEqual(send.ledger);
    }

    const orders = await peekAll(bus.client, 'orders');
    expect(orders.map((m) => m.messageId).sort()).toEqual(
      plan.sends.flatMap((s) => (s.kind === 'poison' && s.queue === 'orders' ? [s.messageId] : [])).sort(),
    );
    expect(orders.every((m) => plan.orderIds.includes(m.sessionId ?? ''))).toBe(true);
    const notJson = orders.find((m) => m.messageId === `${plan.run}-p001`);
    expect(Buffer.isBuffer(notJson?.body)).toBe(true);

    const expectation = await readExpectation(out);
    expect(expectation).toEqual(JSON.parse(JSON.stringify(report.expectation)));
    expect(expectation.orders).toHaveLength(6);
    expect(expectation.deadLetters.map((d) => d.reason).sort()).toEqual([
      'IdempotencyKeyConflict',
      'SchemaValidationFailed',
      'SchemaValidationFailed',
      'SchemaValidationFailed',
      'SchemaValidationFailed',
    ]);
  });

  it('posts the ledgers to /api/ledgers with --to http, needing no Service Bus without poison', async () => {
    const posted: { path: string; key: string | undefined; body: unknown }[] = [];
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      req.on('end', () => {
        posted.push({
          path: req.url ?? '',
          key: req.headers['x-functions-key'] as string | undefined,
          body: JSON.parse(text),
        });
        res.writeHead(202).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const http = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const settings = resolveCliSettings({ http, functionKey: 'k-1' }, {}, '/nonexistent');
      const options = { ...shape, conflicts: 0, poison: 0 };
      await runSend({ ...options, to: 'http', out: undefined, settings });
      const ledgers = generateRun(options).sends.flatMap((s) => (s.kind === 'ledger' ? [s.ledger] : []));
      expect(posted.map((p) => p.body)).toEqual(ledgers);
      expect(posted.every((p) => p.path === '/api/ledgers' && p.key === 'k-1')).toBe(true);
    } finally {
      server.close();
    }
  });

  it('lists the sessions of the orders queue with their depth from the admin view', async () => {
    await runSend({
      ...shape,
      conflicts: 0,
      duplicates: 0,
      poison: 8,
      to: 'queue',
      out: undefined,
      settings: bus.settings,
    });
    const admin = new AdminServer(bus.emulator.broker);
    const port = await admin.listen('127.0.0.1', 0);
    try {
      const report = await runSessions({ settings: bus.settings, admin: `http://127.0.0.1:${port}/stats` });
      expect(report.source).toBe('emulator');
      const orders = report.queues.find((q) => q.name === 'orders');
      const ledger = report.queues.find((q) => q.name === 'ledger');
      expect(orders?.requiresSession).toBe(true);
      expect(orders?.active).toBe(6);
      const depth = (orders?.sessions ?? []).reduce((sum, s) => sum + s.depth, 0);
      expect(depth).toBe(6);
      expect(ledger?.sessions).toBeUndefined();
      expect(report.ordersUnavailable).toMatch(/Cannot reach the function app/);
    } finally {
      await admin.close();
    }
  });
});

describe('convoy send --rate', () => {
  it('schedules each send once the entries before it have had their share of a second, poison counting as one', () => {
    // Prepare
    const plan = generateRun(shape);
    const sizes = plan.sends.map((s) => (s.kind === 'ledger' ? s.ledger.entries.length : 1));

    // Act
    const schedule = sendSchedule(plan.sends, 8);

    // Assess
    expect(plan.sends.some((s) => s.kind === 'poison')).toBe(true);
    expect(schedule).toEqual(sizes.map((_, i) => (sizes.slice(0, i).reduce((a, b) => a + b, 0) * 1000) / 8));
    expect(() => sendSchedule(plan.sends, 0)).toThrow(RangeError);
  });

  it('starts no POST before its scheduled time, counted from the first, in the planned order', async () => {
    // Prepare: a stand-in function app that accepts every ledger and notes the order they came in.
    const arrived: string[] = [];
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      req.on('end', () => {
        arrived.push((JSON.parse(text) as { ledgerId: string }).ledgerId);
        res.writeHead(202).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const http = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const options = { ...shape, conflicts: 0, poison: 0, duplicates: 0 };
      const plan = generateRun(options);
      const schedule = sendSchedule(plan.sends, 200);

      // Act
      const report = await runSend({
        ...options,
        to: 'http',
        rate: 200,
        out: undefined,
        settings: resolveCliSettings({ http }, {}, '/nonexistent'),
      });

      // Assess: bounds that hold at any speed (a slow machine only starts them later).
      expect(report.startedAt).toHaveLength(plan.sends.length);
      const first = report.startedAt[0] as number;
      report.startedAt.forEach((at, i) =>
        expect(at - first, `send ${i}`).toBeGreaterThanOrEqual(schedule[i] as number),
      );
      expect(report.maxLagMs).toBeGreaterThanOrEqual(0);
      expect(arrived).toEqual(plan.sends.flatMap((s) => (s.kind === 'ledger' ? [s.ledger.ledgerId] : [])));
    } finally {
      server.close();
    }
  });
});
