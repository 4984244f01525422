import { describe, expect, it } from 'vitest';
import { isLoopbackEndpoint, isLoopbackHost } from '../../src/adapters/loopback.js';

describe('the one loopback check', () => {
  it('knows this machine by name, address and bracketed address, with or without a port', () => {
    for (const host of [
      'localhost',
      '127.0.0.1',
      '127.8.9.10',
      '::1',
      '[::1]',
      '127.0.0.1:5672',
      '[::1]:8081',
      'localhost:7072',
    ])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of [
      'example.com',
      '10.0.0.1',
      '0.0.0.0',
      '::',
      '128.0.0.1',
      'localhost.example.com',
      '127.0.0.1.nip.io',
    ])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it('reads the host of an endpoint URL, and says no to what does not parse', () => {
    expect(isLoopbackEndpoint('http://127.0.0.1:8081/')).toBe(true);
    expect(isLoopbackEndpoint('https://[::1]:8081/')).toBe(true);
    expect(isLoopbackEndpoint('https://convoy.documents.azure.com:443/')).toBe(false);
    expect(isLoopbackEndpoint('not a url')).toBe(false);
  });
});
