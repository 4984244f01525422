import { CosmosClient } from '@azure/cosmos';
import type { Container, Database } from '@azure/cosmos';
import { afterAll, beforeAll } from 'vitest';
import { createHmac, randomUUID } from 'node:crypto';
import { start } from '../src/index.js';
import type { CosmosEmulator, StartOptions } from '../src/index.js';

/** A unique resource name for one test. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/** An SDK client that never retries on its own, so tests see each status as the emulator sent it. */
export function noRetryClient(emulator: CosmosEmulator): CosmosClient {
  return new CosmosClient({
    endpoint: emulator.endpoint,
    key: emulator.key,
    connectionPolicy: {
      enableEndpointDiscovery: false,
      requestTimeout: 5_000,
      retryOptions: { maxRetryAttemptCount: 0, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 0 },
    },
  });
}

/** A running emulator, a client for it and helpers that create uniquely named resources. */
export interface Harness {
  emulator: CosmosEmulator;
  client: CosmosClient;
  database(): Promise<Database>;
  /** A fresh container partitioned on `/orderId` (the app's layout) unless told otherwise. */
  container(options?: { partitionKey?: string[]; defaultTtl?: number }): Promise<Container>;
  close(): Promise<void>;
}

/**
 * Partition key ranges the suite's emulators serve each container as: `COSMOS_PARTITION_KEY_RANGES`
 * (the vitest project `cosmos-2-ranges` reruns the conformance suite with 2), else 1.
 */
export const SUITE_PARTITION_KEY_RANGES = Number(process.env['COSMOS_PARTITION_KEY_RANGES'] ?? 1);

/** Starts an emulator on 127.0.0.1:0 and returns a {@link Harness}. */
export async function startHarness(options: StartOptions = {}): Promise<Harness> {
  const emulator = await start({ port: 0, partitionKeyRanges: SUITE_PARTITION_KEY_RANGES, ...options });
  const client = noRetryClient(emulator);
  let db: Database | undefined;
  const database = async (): Promise<Database> => {
    db ??= (await client.databases.createIfNotExists({ id: uniqueName('db') })).database;
    return db;
  };
  return {
    emulator,
    client,
    database,
    container: async (opts = {}) => {
      const { container } = await (
        await database()
      ).containers.create({
        id: uniqueName('coll'),
        partitionKey: { paths: opts.partitionKey ?? ['/orderId'] },
        ...(opts.defaultTtl !== undefined && { defaultTtl: opts.defaultTtl }),
      });
      return container;
    },
    close: async () => {
      client.dispose();
      await emulator.close();
    },
  };
}

/** What {@link useOrdersHarness} fills in before the file's tests run. */
export interface OrdersFixture {
  readonly h: Harness;
  /** A `/orderId` container with TTL enabled and no default expiry, like the app's. */
  readonly orders: Container;
}

/**
 * Registers the file-level hooks most suites share: start a harness and one orders container before the tests,
 * close it after. Read the fields inside tests/hooks only (they are set by `beforeAll`).
 */
export function useOrdersHarness(options: StartOptions = {}): OrdersFixture {
  const fixture = {} as { h: Harness; orders: Container };
  beforeAll(async () => {
    fixture.h = await startHarness(options);
    fixture.orders = await fixture.h.container({ defaultTtl: -1 });
  });
  afterAll(async () => {
    await fixture.h.close();
  });
  return fixture;
}

/** Signs like the SDK does (`utils/headers.js`) so raw requests pass the emulator's auth check. */
export function masterKeyAuth(
  key: string,
  method: string,
  resourceType: string,
  resourceLink: string,
  date: string,
): string {
  const payload = `${method.toLowerCase()}\n${resourceType.toLowerCase()}\n${resourceLink}\n${date.toLowerCase()}\n\n`;
  const sig = createHmac('sha256', Buffer.from(key, 'base64')).update(payload).digest('base64');
  return encodeURIComponent(`type=master&ver=1.0&sig=${sig}`);
}

/** Options for {@link rawRequest}. */
export interface RawRequestOptions {
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Key to sign with. @default the emulator's key */
  key?: string;
}

/**
 * Sends a signed request with `fetch`, for what the SDK cannot send (bad JSON, oversized batches…).
 * The resource type/link are derived from the path the same way the SDK derives them.
 */
export async function rawRequest(
  emulator: CosmosEmulator,
  method: string,
  path: string,
  options: RawRequestOptions = {},
): Promise<Response> {
  const segments = path.split('/').filter((s) => s.length > 0);
  const isItem = segments.length % 2 === 0;
  const resourceType =
    segments.length === 0 ? '' : ((isItem ? segments[segments.length - 2] : segments[segments.length - 1]) ?? '');
  const resourceLink = (isItem ? segments : segments.slice(0, -1)).join('/');
  const date = new Date().toUTCString();
  return fetch(new URL(path, emulator.endpoint), {
    method,
    body: options.body,
    headers: {
      'x-ms-date': date,
      'x-ms-version': '2020-07-15',
      'content-type': 'application/json',
      authorization: masterKeyAuth(options.key ?? emulator.key, method, resourceType, resourceLink, date),
      ...options.headers,
    },
  });
}
