/**
 * A process holding one unmodified `ServiceBusAdministrationClient`, built from `ADMIN_CONNECTION_STRING` alone
 * and trusting the emulator's certificate only through `NODE_EXTRA_CA_CERTS`, as a user would run it. It reads
 * one JSON call per line on stdin (`{ id, method, args }`) and answers one JSON line on stdout: the value (lists
 * collected from their iterator) or the error's `code`, `statusCode` and `message`.
 */
import { createInterface } from 'node:readline';
import { ServiceBusAdministrationClient } from '@azure/service-bus';

const client = new ServiceBusAdministrationClient(process.env.ADMIN_CONNECTION_STRING as string);
const calls = client as unknown as Record<string, (...args: unknown[]) => unknown>;

async function invoke(method: string, args: unknown[]): Promise<unknown> {
  const result = calls[method]?.apply(client, args);
  if (result === undefined) throw new Error(`no method ${method}`);
  if (typeof (result as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
    const all: unknown[] = [];
    for await (const item of result as AsyncIterable<unknown>) all.push(item);
    return all;
  }
  return result;
}

for await (const line of createInterface({ input: process.stdin })) {
  const { id, method, args } = JSON.parse(line) as { id: number; method: string; args: unknown[] };
  try {
    const value = await invoke(method, args);
    process.stdout.write(`${JSON.stringify({ id, ok: true, value })}\n`);
  } catch (err) {
    const e = err as { code?: string; statusCode?: number; message?: string };
    process.stdout.write(
      `${JSON.stringify({ id, ok: false, error: { code: e.code, statusCode: e.statusCode, message: e.message } })}\n`,
    );
  }
}
