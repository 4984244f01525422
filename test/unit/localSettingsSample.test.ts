import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { resolveOutboxConfig } from '../../src/core/index.js';
import { resolveCoreConfig } from '../../src/core/config.js';

async function sampleValues(): Promise<Record<string, string>> {
  const file = JSON.parse(await readFile(new URL('../../local.settings.sample.json', import.meta.url), 'utf8')) as {
    Values: Record<string, string>;
  };
  return file.Values;
}

describe('local.settings.sample.json', () => {
  it('spells out the defaults: resolving it gives the same settings as resolving nothing', async () => {
    // Prepare
    const values = await sampleValues();
    // Act
    const core = resolveCoreConfig(values);
    const outbox = resolveOutboxConfig(values);
    // Assess
    expect(Object.values(values).every((v) => typeof v === 'string')).toBe(true);
    expect(core).toEqual(resolveCoreConfig({}));
    expect(outbox).toEqual(resolveOutboxConfig({}));
    expect(outbox.webhookUrl).toBeUndefined();
  });
});
