import { isServiceBusError, ServiceBusClient } from '@azure/service-bus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start } from '../src/index.js';
import { receiveExactly } from '../../../test/support/serviceBusWaits.js';
import { configWith, fastClientOptions, queue } from './helpers.js';
import { ROOT, putToken, rawConnect, sasToken } from './rawAmqp.js';
import { AdminClientProcess } from './support/adminClientProcess.js';
import { signedFetch, startAdminStack } from './support/adminStack.js';
import type { AdminStack } from './support/adminStack.js';

/** The code a failed SDK call reports. */
async function codeOf(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
    return undefined;
  } catch (err) {
    return isServiceBusError(err) ? err.code : (err as { code?: string }).code;
  }
}

const withKey = (cs: string, keyName: string, key: string): string =>
  cs.replace(
    /SharedAccessKeyName=[^;]*;SharedAccessKey=[^;]*/,
    `SharedAccessKeyName=${keyName};SharedAccessKey=${key}`,
  );

/**
 * Shared access signatures as Service Bus checks them (learn.microsoft.com, "Service Bus access control with Shared
 * Access Signatures"): a token signed with a namespace key or the entity's own key, not expired, granting the right
 * the operation needs.
 */
describe('credentials', () => {
  let s: AdminStack;
  beforeAll(async () => {
    s = await startAdminStack(configWith([queue('guarded')]));
  });
  afterAll(() => s.close());

  it('takes the well-known RootManageSharedAccessKey and refuses another key with UnauthorizedAccess', async () => {
    // Prepare
    const wrong = new ServiceBusClient(
      withKey(s.emulator.connectionString, ROOT.keyName, 'not-the-key'),
      fastClientOptions,
    );
    try {
      // Act
      const code = await codeOf(wrong.createSender('guarded').sendMessages({ body: 'x' }));

      // Assess: refused; the right key still sends.
      expect(code).toBe('UnauthorizedAccess');
      await s.client.createSender('guarded').sendMessages({ body: 'ok' });
    } finally {
      await wrong.close();
    }
  });

  it('answers an expired or forged token on $cbs with 401 and the reason', async () => {
    const conn = await rawConnect(s.emulator.port, { token: false });
    try {
      const audience = `sb://127.0.0.1:${s.emulator.port}/guarded`;
      const expired = await putToken(
        conn,
        audience,
        sasToken(audience, ROOT.keyName, ROOT.key, Math.floor(Date.now() / 1000) - 60),
      );
      const forged = await putToken(conn, audience, sasToken(audience, ROOT.keyName, 'guess'));
      const unknownRule = await putToken(conn, audience, sasToken(audience, 'NoSuchRule', ROOT.key));
      expect(expired).toMatchObject({ status: 401, description: expect.stringMatching(/^ExpiredToken/) });
      expect(forged).toMatchObject({ status: 401, description: expect.stringMatching(/^InvalidSignature/) });
      expect(unknownRule.status).toBe(401);
    } finally {
      conn.close();
    }
  });

  it("lets an entity's Listen-only rule receive from that entity but not send to it, nor reach another", async () => {
    // Prepare: a queue with its own rule, Listen only, and a message in it.
    await s.admin.call('createQueue', 'listen-only', {
      authorizationRules: [
        {
          claimType: 'SharedAccessKey',
          keyName: 'reader',
          accessRights: ['Listen'],
          primaryKey: 'cHJpbWFyeS1rZXk=',
          secondaryKey: 'c2Vjb25kYXJ5LWtleQ==',
        },
      ],
    });
    expect(await s.admin.call('getQueue', 'listen-only')).toMatchObject({
      authorizationRules: [{ keyName: 'reader', accessRights: ['Listen'] }],
    });
    await s.client.createSender('listen-only').sendMessages({ body: 'for the reader' });
    const reader = new ServiceBusClient(
      withKey(s.emulator.connectionString, 'reader', 'c2Vjb25kYXJ5LWtleQ=='),
      fastClientOptions,
    );
    try {
      // Act
      const sent = await codeOf(reader.createSender('listen-only').sendMessages({ body: 'x' }));
      const elsewhere = await codeOf(reader.createReceiver('guarded').receiveMessages(1, { maxWaitTimeInMs: 500 }));
      const received = await receiveExactly(
        reader.createReceiver('listen-only', { receiveMode: 'receiveAndDelete' }),
        1,
      );

      // Assess: the secondary key works as the primary; Send is refused, another entity too.
      expect(sent).toBe('UnauthorizedAccess');
      expect(elsewhere).toBe('UnauthorizedAccess');
      expect(received.map((m) => m.body)).toEqual(['for the reader']);
    } finally {
      await reader.close();
    }
  });

  it('answers the management API 401 without a valid signature, and leaves /health and /stats open', async () => {
    const unsigned = await fetch(`${s.http}/guarded?api-version=2021-05`);
    const wrongKey = new AdminClientProcess(
      withKey(s.emulator.administrationConnectionString as string, ROOT.keyName, 'nope'),
      s.certOut,
    );
    try {
      expect(unsigned.status).toBe(401);
      expect(await unsigned.text()).toMatch(/InvalidToken|InvalidSignature/);
      expect(await wrongKey.failure('getQueue', 'guarded')).toMatchObject({ statusCode: 401 });
      expect((await signedFetch(`${s.http}/guarded?api-version=2021-05`)).status).toBe(200);
      expect((await fetch(`${s.http}/health`)).status).toBe(200);
      expect((await fetch(`${s.http}/stats`)).status).toBe(200);
    } finally {
      await wrongKey.close();
    }
  });
});

describe('credentials with allowAnyKey', () => {
  it('accepts any key, as before credentials were checked', async () => {
    const emulator = await start({ port: 0, adminPort: 0, config: configWith([queue('open')]), allowAnyKey: true });
    const client = new ServiceBusClient(withKey(emulator.connectionString, 'anyone', 'anything'), fastClientOptions);
    try {
      await client.createSender('open').sendMessages({ body: 'let in' });
      expect(
        (await receiveExactly(client.createReceiver('open', { receiveMode: 'receiveAndDelete' }), 1)).map(
          (m) => m.body,
        ),
      ).toEqual(['let in']);
    } finally {
      await client.close();
      await emulator.close();
    }
  });
});
