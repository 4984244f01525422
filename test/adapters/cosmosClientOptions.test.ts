import { describe, expect, it } from 'vitest';
import { resolveCosmosResourceNames } from '../../src/adapters/cosmosClientOptions.js';

describe('the Cosmos DB resource names', () => {
  it('default to convoy / orders, an empty setting included', () => {
    expect(resolveCosmosResourceNames({})).toEqual({ database: 'convoy', container: 'orders' });
    expect(resolveCosmosResourceNames({ COSMOS_DATABASE: ' ', COSMOS_CONTAINER: '' })).toEqual({
      database: 'convoy',
      container: 'orders',
    });
  });

  // That the app then reads and writes that container: test/integration/composeApp.test.ts.
  it('come from COSMOS_DATABASE and COSMOS_CONTAINER', () => {
    const names = resolveCosmosResourceNames({ COSMOS_DATABASE: 'convoy-prod', COSMOS_CONTAINER: 'orders-v2' });
    expect(names).toEqual({ database: 'convoy-prod', container: 'orders-v2' });
  });

  it('refuse an id Cosmos DB would reject, naming the setting and not echoing the value', () => {
    for (const bad of ['a/b', 'a\\b', 'a?b', 'a#b', 'x'.repeat(256)]) {
      expect(() => resolveCosmosResourceNames({ COSMOS_DATABASE: bad })).toThrow(
        expect.objectContaining({ code: 'InvalidSetting', setting: 'COSMOS_DATABASE' }),
      );
    }
    expect(() => resolveCosmosResourceNames({ COSMOS_CONTAINER: 'o/1' })).toThrow(
      expect.objectContaining({ setting: 'COSMOS_CONTAINER' }),
    );
  });
});
