import type { Container } from 'rhea';

/** Accepts any credentials: the emulator authorises through CBS tokens, which it accepts as well. */
class AcceptAll {
  outcome: boolean | undefined = undefined;
  username: string | undefined = undefined;
  start(response?: Buffer): void {
    this.outcome = true;
    this.username = response ? response.toString('utf8').replace(/\0/g, '') : 'anonymous';
  }
}

/**
 * Offers ANONYMOUS and PLAIN (what the JS SDK and generic clients use) and MSSBCBS, the mechanism the .NET
 * SDK insists on; rhea's default server set does not include it.
 */
export function configureSasl(container: Container): void {
  const mechs = container.sasl_server_mechanisms as Record<string, () => AcceptAll> & { enable_anonymous(): void };
  mechs.enable_anonymous();
  mechs.PLAIN = () => new AcceptAll();
  mechs.MSSBCBS = () => new AcceptAll();
}
