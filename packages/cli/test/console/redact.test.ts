import { describe, expect, it } from 'vitest';
import { redactor } from '../../src/console/redact.js';

describe('the console redactor', () => {
  it('takes secret settings and key parts out of any text, and leaves where to connect', () => {
    const key = 'a2V5LXRoYXQtbXVzdC1uZXZlci1yZWFjaC1hLXBhZ2U=';
    const redact = redactor(
      {
        ServiceBusConnection: `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=${key}`,
        CONVOY_FUNCTION_KEY: 'function-key-value',
        CosmosConnection__accountEndpoint: 'https://convoy.documents.azure.com:443/',
        LOG_LEVEL: 'info',
      },
      ['console-token-1234'],
    );

    const text = redact(
      `failed: Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=${key} · key function-key-value · ` +
        'AccountEndpoint=https://other/;AccountKey=b3RoZXIta2V5;' +
        ' · token console-token-1234 · at https://convoy.documents.azure.com:443/ · info',
    );

    expect(text).not.toContain(key);
    expect(text).not.toContain('function-key-value');
    expect(text).not.toContain('b3RoZXIta2V5');
    expect(text).not.toContain('console-token-1234');
    expect(text).toContain('AccountKey=(secret)');
    expect(text).toContain('at https://convoy.documents.azure.com:443/ · info');
  });
});
