/**
 * Service Bus emulator throughput and memory (`npm run bench:servicebus`). The emulator runs as a child process
 * (so its resident memory is its own) and the unmodified @azure/service-bus SDK drives it over loopback.
 */
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceBusClient } from '@azure/service-bus';
import type { ServiceBusMessage, ServiceBusSender } from '@azure/service-bus';
import { launchServiceBusEmulator } from '@ledger-convoy/local-host';
import { drainSessions as drainWithRawConsumer } from './support/rawConsumer.js';

const props = { LockDuration: 'PT1M', MaxDeliveryCount: 10, DefaultMessageTimeToLive: 'P1D' };
const config = {
  UserConfig: {
    Namespaces: [
      {
        Name: 'bench',
        Queues: [
          { Name: 'bench-send', Properties: props },
          { Name: 'bench-recv1', Properties: props },
          { Name: 'bench-recv16', Properties: props },
          { Name: 'bench-sessions', Properties: { ...props, RequiresSession: true } },
          { Name: 'bench-many-sessions', Properties: { ...props, RequiresSession: true } },
          { Name: 'bench-session-workers', Properties: { ...props, RequiresSession: true } },
          { Name: 'bench-plain32', Properties: props },
          { Name: 'bench-memory', Properties: props },
        ],
        Topics: [],
      },
    ],
    Logging: { Type: 'Console' },
  },
};

/** CPU time (user + system) the emulator process has used, ms: less sensitive to a shared machine than wall time. */
function cpuMs(pid: number): number {
  // Fields 14 and 15 of /proc/<pid>/stat, after the parenthesised command name, in clock ticks (100 per second).
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

async function sendAll(sender: ServiceBusSender, messages: ServiceBusMessage[]): Promise<void> {
  let batch = await sender.createMessageBatch();
  for (const m of messages) {
    if (!batch.tryAddMessage(m)) {
      await sender.sendMessages(batch);
      batch = await sender.createMessageBatch();
      batch.tryAddMessage(m);
    }
  }
  if (batch.count > 0) await sender.sendMessages(batch);
}

const payload = (i: number): ServiceBusMessage => ({
  body: { order: i, amount: 12.5, note: 'benchmark payload' },
  messageId: `m-${i}`,
});

async function timed(fn: () => Promise<number>): Promise<{ count: number; seconds: number }> {
  const t0 = performance.now();
  const count = await fn();
  return { count, seconds: (performance.now() - t0) / 1000 };
}

async function drainPeekLock(
  client: ServiceBusClient,
  queue: string,
  receivers: number,
  expected: number,
): Promise<number> {
  let done = 0;
  await Promise.all(
    [...Array(receivers).keys()].map(async () => {
      const r = client.createReceiver(queue, { maxAutoLockRenewalDurationInMs: 0 });
      while (done < expected) {
        const ms = await r.receiveMessages(50, { maxWaitTimeInMs: 300 });
        if (ms.length === 0 && done >= expected) break;
        for (const m of ms) {
          await r.completeMessage(m);
          done++;
        }
      }
      await r.close();
    }),
  );
  return done;
}

async function drainSessions(clients: ServiceBusClient[], queue: string, expected: number): Promise<number> {
  let done = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (done < expected) {
        const r = await client.acceptNextSession(queue, { maxAutoLockRenewalDurationInMs: 0 }).catch(() => undefined);
        if (!r) continue;
        for (;;) {
          const ms = await r.receiveMessages(50, { maxWaitTimeInMs: 200 });
          if (ms.length === 0) break;
          for (const m of ms) {
            await r.completeMessage(m);
            done++;
          }
        }
        await r.close();
      }
    }),
  );
  return done;
}

/**
 * 32 session receivers (one client each) take sessions until every message is completed. Each session's size is
 * known here, so a receiver closes it as soon as its messages are done: the figure is the broker's accept, receive,
 * complete and close, not the SDK's idle wait for a session that has nothing more.
 */
async function drainKnownSessions(
  clients: ServiceBusClient[],
  queue: string,
  sessions: number,
  perSession: number,
): Promise<number> {
  let done = 0;
  const expected = sessions * perSession;
  await Promise.all(
    clients.map(async (client) => {
      while (done < expected) {
        const r = await client.acceptNextSession(queue, { maxAutoLockRenewalDurationInMs: 0 }).catch(() => undefined);
        if (!r) continue;
        let got = 0;
        while (got < perSession) {
          const ms = await r.receiveMessages(perSession - got, { maxWaitTimeInMs: 1000 });
          for (const m of ms) {
            await r.completeMessage(m);
            got++;
            done++;
          }
        }
        await r.close();
      }
    }),
  );
  return done;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-bench-'));
  const configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify(config));
  const { child, connectionString } = await launchServiceBusEmulator(
    ['--port', '0', '--admin-port', '0', '--admin-https-port', '0', '--config', configPath],
    join(dir, 'emulator.log'),
  );
  const client = new ServiceBusClient(connectionString);
  const rows: {
    scenario: string;
    messages: number;
    seconds: string;
    'msgs/s': string;
    'emulator CPU µs/msg': string;
  }[] = [];
  const pid = child.pid as number;
  let cpuMark = cpuMs(pid);
  const row = (scenario: string, r: { count: number; seconds: number }): void => {
    console.error(`  done: ${scenario}`);
    // CPU since the previous row: this scenario's preparation (its sends) and its timed part.
    const cpu = cpuMs(pid) - cpuMark;
    cpuMark = cpuMs(pid);
    rows.push({
      scenario,
      messages: r.count,
      seconds: r.seconds.toFixed(2),
      'msgs/s': Math.round(r.count / r.seconds).toString(),
      'emulator CPU µs/msg': Math.round((cpu * 1000) / r.count).toString(),
    });
  };
  try {
    const sendN = Number(process.env.BENCH_SEND ?? 20_000);
    row(
      'batch send',
      await timed(async () => {
        await sendAll(client.createSender('bench-send'), [...Array(sendN).keys()].map(payload));
        return sendN;
      }),
    );

    const recvN = 5_000;
    await sendAll(client.createSender('bench-recv1'), [...Array(recvN).keys()].map(payload));
    row('peekLock receive + complete, 1 receiver', await timed(() => drainPeekLock(client, 'bench-recv1', 1, recvN)));
    await sendAll(client.createSender('bench-recv16'), [...Array(recvN).keys()].map(payload));
    row(
      'peekLock receive + complete, 16 receivers',
      await timed(() => drainPeekLock(client, 'bench-recv16', 16, recvN)),
    );

    const sessions = 50;
    const perSession = 100;
    const sessionMsgs: ServiceBusMessage[] = [];
    for (let i = 0; i < perSession; i++)
      for (let s = 0; s < sessions; s++)
        sessionMsgs.push({ ...payload(i), messageId: `s${s}-${i}`, sessionId: `s${s}` });
    await sendAll(client.createSender('bench-sessions'), sessionMsgs);
    const sessionClients = [...Array(8).keys()].map(
      () => new ServiceBusClient(connectionString, { retryOptions: { maxRetries: 0, timeoutInMs: 1000 } }),
    );
    row(
      'sessions 50 x 100, 8 session receivers',
      await timed(() => drainSessions(sessionClients, 'bench-sessions', sessions * perSession)),
    );
    await Promise.all(sessionClients.map((c) => c.close()));

    // Sessions against a plain queue: the same 10,000 messages and 32 receivers, so the ratio is the price of sessions.
    const manySessions = 1_000;
    const tenEach = 10;
    const spread: ServiceBusMessage[] = [];
    for (let i = 0; i < tenEach; i++)
      for (let s = 0; s < manySessions; s++)
        spread.push({ ...payload(i), messageId: `ms${s}-${i}`, sessionId: `ms${s}` });
    await sendAll(
      client.createSender('bench-plain32'),
      spread.map((m, i) => ({ ...m, sessionId: undefined, messageId: `p-${i}` })),
    );
    const plain = await timed(() => drainPeekLock(client, 'bench-plain32', 32, spread.length));
    row('plain queue receive + complete, 32 receivers', plain);
    await sendAll(client.createSender('bench-many-sessions'), spread);
    const many = [...Array(32).keys()].map(
      () => new ServiceBusClient(connectionString, { retryOptions: { maxRetries: 0, timeoutInMs: 1000 } }),
    );
    const session = await timed(() => drainKnownSessions(many, 'bench-many-sessions', manySessions, tenEach));
    row('session receive + complete, 32 session receivers, 1,000 sessions x 10', session);
    await Promise.all(many.map((c) => c.close()));
    await sendAll(client.createSender('bench-session-workers'), spread);
    // bench:pipeline's raw reference consumer (one client, 8 workers), the figure Nagle's algorithm moved.
    const workers = { connectionString, queue: 'bench-session-workers', sessions: 8, messages: spread.length };
    const raw = await drainWithRawConsumer({ ...workers, timeoutMs: 600_000 });
    row('plain session consumer, 8 workers on one client, 1,000 sessions x 10', {
      count: raw.messages,
      seconds: raw.seconds,
    });
    const ratio = session.count / session.seconds / (plain.count / plain.seconds);

    const before = rssMb(child.pid as number);
    const memN = 100_000;
    await sendAll(client.createSender('bench-memory'), [...Array(memN).keys()].map(payload));
    const after = rssMb(child.pid as number);
    console.table(rows);
    console.log(`session / plain queue receive + complete (32 receivers, 10,000 messages): ${ratio.toFixed(2)}`);
    console.log(
      `resident memory: ${before.toFixed(0)} MB idle -> ${after.toFixed(0)} MB with ${memN.toLocaleString('en')} queued messages (${(((after - before) * 1024 * 1024) / memN).toFixed(0)} bytes/message)`,
    );
  } finally {
    await client.close();
    await child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
