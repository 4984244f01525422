import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { createRequire } from 'node:module';
import path from 'node:path';

/** One call the fake host received: the RPC name and the request as proto-loader decoded it. */
export interface ReceivedCall {
  method: string;
  request: Record<string, unknown>;
}

/** A fake of the Functions host's gRPC Settlement service, built from the extension's own settlement.proto. */
export interface FakeSettlementServer {
  readonly port: number;
  readonly calls: ReceivedCall[];
  /** Makes the next call of `method` fail with the given gRPC status. */
  failNext(method: string, code: grpc.status, details: string): void;
  /** What `RenewSessionLock` answers. */
  lockedUntil: { seconds: number; nanos: number };
  close(): Promise<void>;
}

/** The proto the extension loads at run time (`dist/proto`, next to its bundle). */
export function extensionSettlementProtoPath(): string {
  const require = createRequire(import.meta.url);
  return path.join(
    path.dirname(require.resolve('@azure/functions-extensions-servicebus')),
    'proto',
    'settlement.proto',
  );
}

const methods = [
  'Complete',
  'Abandon',
  'Deadletter',
  'Defer',
  'RenewMessageLock',
  'GetSessionState',
  'SetSessionState',
  'ReleaseSession',
  'RenewSessionLock',
] as const;

/** Starts the fake on 127.0.0.1 with an OS-chosen port. */
export async function startFakeSettlementServer(): Promise<FakeSettlementServer> {
  // Same loader options as the extension's client, so both sides agree on field names and defaults.
  const definition = protoLoader.loadSync(extensionSettlementProtoPath(), {
    keepCase: false,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const loaded = grpc.loadPackageDefinition(definition);
  const settlement = loaded['Settlement'] as grpc.ServiceClientConstructor;
  const calls: ReceivedCall[] = [];
  const failures = new Map<string, grpc.ServiceError>();
  const server = new grpc.Server();

  const fake = {
    port: 0,
    calls,
    lockedUntil: { seconds: 0, nanos: 0 },
    failNext(method: string, code: grpc.status, details: string) {
      failures.set(method, Object.assign(new Error(details), { code, details, metadata: new grpc.Metadata() }));
    },
    // Forced: the extension's client keeps its channel open for the life of the process.
    close: () => {
      server.forceShutdown();
      return Promise.resolve();
    },
  };

  const handlers: grpc.UntypedServiceImplementation = {};
  for (const method of methods) {
    const handlerName = method.charAt(0).toLowerCase() + method.slice(1);
    handlers[handlerName] = (
      call: grpc.ServerUnaryCall<Record<string, unknown>, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) => {
      calls.push({ method, request: call.request });
      const failure = failures.get(method);
      if (failure) {
        failures.delete(method);
        callback(failure, null);
        return;
      }
      if (method === 'RenewSessionLock') callback(null, { lockedUntil: fake.lockedUntil });
      else if (method === 'GetSessionState') callback(null, { sessionState: Buffer.alloc(0) });
      else callback(null, {});
    };
  }
  server.addService(settlement.service, handlers);
  fake.port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve(port),
    );
  });
  return fake;
}
