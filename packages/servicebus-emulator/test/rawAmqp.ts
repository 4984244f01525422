import { createHmac } from 'node:crypto';
import rhea from 'rhea';
import type { Connection, Message } from 'rhea';

/** The emulator's well-known root key, as every emulator connection string names it. */
export const ROOT = { keyName: 'RootManageSharedAccessKey', key: 'SAS_KEY_VALUE' } as const;

/** A shared access signature as the SDKs build one: HMAC-SHA256 of the encoded resource and the expiry (epoch s). */
export function sasToken(
  resource: string,
  keyName: string,
  key: string,
  expiry = Math.floor(Date.now() / 1000) + 3600,
): string {
  const sr = encodeURIComponent(resource);
  const sig = encodeURIComponent(createHmac('sha256', key).update(`${sr}\n${expiry}`).digest('base64'));
  return `SharedAccessSignature sr=${sr}&sig=${sig}&se=${expiry}&skn=${encodeURIComponent(keyName)}`;
}

/** Puts a token on `$cbs` and returns the reply's status code and description. */
export async function putToken(
  conn: Connection,
  audience: string,
  token: string,
): Promise<{ status: number; description: string }> {
  const replyTo = `cbs-${Math.random().toString(16).slice(2)}`;
  const receiver = conn.open_receiver({
    source: { address: '$cbs' },
    target: { address: replyTo },
    name: replyTo,
  } as never);
  const sender = conn.open_sender({ target: { address: '$cbs' } } as never);
  await new Promise<void>((resolve) => receiver.once('receiver_open', () => resolve()));
  await new Promise<void>((resolve) => (sender.sendable() ? resolve() : sender.once('sendable', () => resolve())));
  const reply = new Promise<Message>((resolve) => receiver.once('message', (ctx) => resolve(ctx.message as Message)));
  sender.send({
    message_id: replyTo,
    reply_to: replyTo,
    body: token,
    application_properties: { operation: 'put-token', type: 'servicebus.windows.net:sastoken', name: audience },
  } as Message);
  const m = await reply;
  sender.close();
  receiver.close();
  const props = (m.application_properties ?? {}) as Record<string, unknown>;
  return { status: Number(props['status-code']), description: String(props['status-description']) };
}

/**
 * A plain rhea connection to the emulator, for what the SDK cannot send. Like the SDKs it first puts a token for
 * the whole namespace, signed with the root key, on `$cbs` (`token: false` leaves that out).
 */
export async function rawConnect(
  port: number,
  options: Record<string, unknown> & { token?: false } = {},
): Promise<Connection> {
  const { token, ...connectOptions } = options;
  const container = rhea.create_container();
  const conn = container.connect({ host: '127.0.0.1', port, reconnect: false, ...connectOptions } as never);
  await new Promise<void>((resolve, reject) => {
    conn.once('connection_open', () => resolve());
    conn.once('connection_error', (ctx) => reject(ctx.connection.error));
    conn.once('disconnected', (ctx) => reject(ctx.error ?? new Error('disconnected')));
  });
  if (token !== false) {
    const namespace = `sb://127.0.0.1:${port}/`;
    const reply = await putToken(conn, namespace, sasToken(namespace, ROOT.keyName, ROOT.key));
    if (reply.status !== 202) throw new Error(`put-token refused: ${reply.status} ${reply.description}`);
  }
  return conn;
}

/** Sends one `$management` request and returns the reply. */
export async function managementRequest(
  conn: Connection,
  entity: string,
  operation: string,
  body: Record<string, unknown>,
): Promise<Message> {
  const replyTo = `reply-${Math.random().toString(16).slice(2)}`;
  const receiver = conn.open_receiver({
    source: { address: `${entity}/$management` },
    target: { address: replyTo },
    name: replyTo,
  } as never);
  const sender = conn.open_sender({ target: { address: `${entity}/$management` } } as never);
  await new Promise<void>((resolve) => receiver.once('receiver_open', () => resolve()));
  await new Promise<void>((resolve) => (sender.sendable() ? resolve() : sender.once('sendable', () => resolve())));
  const reply = new Promise<Message>((resolve) => receiver.once('message', (ctx) => resolve(ctx.message as Message)));
  sender.send({ message_id: replyTo, reply_to: replyTo, application_properties: { operation }, body } as Message);
  const m = await reply;
  sender.close();
  receiver.close();
  return m;
}

/** Attaches a link and resolves with the detach error (or undefined when it opened and stayed open). */
export function attachError(
  conn: Connection,
  kind: 'sender' | 'receiver',
  address: string,
): Promise<{ condition?: string } | undefined> {
  return new Promise((resolve) => {
    const link = kind === 'sender' ? conn.open_sender(address) : conn.open_receiver(address);
    link.once(kind === 'sender' ? 'sender_error' : 'receiver_error', (ctx) =>
      resolve((ctx.sender ?? ctx.receiver)?.error as { condition?: string }),
    );
    link.once(kind === 'sender' ? 'sender_open' : 'receiver_open', () => {
      // A refusal is an attach followed by a detach. The broker answers frames in order, so once a later attach
      // on this connection is answered, a detach for this link would have been read already.
      const probe = conn.open_sender('$cbs');
      probe.once('sender_open', () => {
        probe.close();
        resolve(undefined);
      });
    });
  });
}

/** AMQP type families, as the wire encodes them (the width variants of one type count as one). */
const FAMILIES: Record<string, string> = {
  Boolean: 'boolean',
  True: 'boolean',
  False: 'boolean',
  Ubyte: 'ubyte',
  Ushort: 'ushort',
  Uint: 'uint',
  SmallUint: 'uint',
  Uint0: 'uint',
  Ulong: 'ulong',
  SmallUlong: 'ulong',
  Ulong0: 'ulong',
  Byte: 'byte',
  Short: 'short',
  Int: 'int',
  SmallInt: 'int',
  Long: 'long',
  SmallLong: 'long',
  Float: 'float',
  Double: 'double',
  Timestamp: 'timestamp',
  Uuid: 'uuid',
  Str8: 'string',
  Str32: 'string',
  Sym8: 'symbol',
  Sym32: 'symbol',
  Vbin8: 'binary',
  Vbin32: 'binary',
};

interface TypedValue {
  type: { name: string };
  value: unknown;
  descriptor?: { value: unknown };
}

/** The AMQP type of each application property of an encoded message, read from its bytes. */
export function appPropertyTypes(raw: Buffer): Record<string, string> {
  const reader = new (
    rhea.types as unknown as { Reader: new (b: Buffer) => { read(): TypedValue; remaining(): number } }
  ).Reader(raw);
  while (reader.remaining() > 0) {
    const section = reader.read();
    if (section.descriptor?.value !== 0x74 && section.descriptor?.value !== 'amqp:application-properties:map') continue;
    const entries = section.value as TypedValue[];
    const out: Record<string, string> = {};
    for (let i = 0; i + 1 < entries.length; i += 2) {
      const v = entries[i + 1] as TypedValue;
      out[String((entries[i] as TypedValue).value)] = FAMILIES[v.type.name] ?? v.type.name;
    }
    return out;
  }
  return {};
}

/**
 * Receives one message with a plain rhea receiver (receiveAndDelete) and returns its encoded bytes, which rhea
 * decodes before any handler sees them: the decode is wrapped while the receiver waits.
 */
export async function receiveRaw(conn: Connection, address: string): Promise<Buffer> {
  const codec = rhea.message as unknown as { decode: (b: Buffer) => unknown };
  const original = codec.decode;
  let last: Buffer | undefined;
  codec.decode = function decode(this: unknown, b: Buffer): unknown {
    last = b;
    return original.call(this, b);
  };
  try {
    return await new Promise<Buffer>((resolve) => {
      const r = conn.open_receiver({ source: { address }, snd_settle_mode: 1, credit_window: 1 } as never);
      r.once('message', () => {
        const raw = last as Buffer;
        r.close();
        resolve(raw);
      });
    });
  } finally {
    codec.decode = original;
  }
}
