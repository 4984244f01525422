import type { AccessRight, AuthorizationRule } from '../config.js';
import { brokerErrors } from '../errors/brokerError.js';
import type { BrokerError } from '../errors/brokerError.js';
import { parseSasToken, signedWith } from './sasToken.js';

/** The namespace's well-known rule: every emulator connection string uses it. */
export const ROOT_KEY_NAME = 'RootManageSharedAccessKey';
/** The key of {@link ROOT_KEY_NAME}, as the official emulator's. */
export const ROOT_KEY = 'SAS_KEY_VALUE';

/** What a verified token allows: rights, under a path, until a time. */
export interface Grant {
  readonly keyName: string;
  readonly rights: readonly AccessRight[];
  /** Entity path the token covers, lower-cased, without slashes at either end; '' covers the namespace. */
  readonly scope: string;
  /** Epoch ms. */
  readonly expiresAt: number;
}

/** Where the rules of an entity come from (the broker's queues and topics). */
type EntityRules = (path: string) => readonly AuthorizationRule[] | undefined;

/** Options of {@link AccessControl}. */
export interface AccessControlOptions {
  /** The namespace's rules (the root rule included). */
  readonly namespaceRules: readonly AuthorizationRule[];
  /** The rules of the queue or topic at a path. */
  readonly entityRules: EntityRules;
  /** Accept any signature and any key, granting every right (`--allow-any-key`). @default false */
  readonly allowAnyKey?: boolean;
}

/** A path without its scheme, host, query and surrounding slashes, lower-cased. */
function pathOf(uri: string): string {
  return uri
    .replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '')
    .replace(/\?.*$/, '')
    .replace(/^\/+|\/+$/g, '')
    .toLowerCase();
}

/**
 * Shared access signatures checked as Service Bus checks them: a token must be signed with the primary or
 * secondary key of the rule it names — the namespace's, or the entity's own for a resource inside that entity — and
 * not be expired; an operation needs a right (Manage, Send, Listen) the rule grants for a scope that covers the entity.
 */
export class AccessControl {
  constructor(private readonly options: AccessControlOptions) {}

  /** Whether every token is accepted (`--allow-any-key`). */
  get open(): boolean {
    return this.options.allowAnyKey === true;
  }

  /** Verifies a token; the grant, or the error Azure gives (InvalidSignature, ExpiredToken). */
  authenticate(text: string, now = Date.now()): Grant | BrokerError {
    const token = parseSasToken(text);
    if (this.open) {
      return {
        keyName: token?.keyName ?? 'anonymous',
        rights: ['Manage', 'Send', 'Listen'],
        scope: '',
        expiresAt: token ? token.expiry * 1000 : Infinity,
      };
    }
    if (!token)
      return brokerErrors.unauthorized(
        'InvalidToken: The token is not a shared access signature (SharedAccessSignature sr=…&sig=…&se=…&skn=…).',
      );
    if (token.expiry * 1000 <= now)
      return brokerErrors.unauthorized(
        `ExpiredToken: The token is expired. Expiration time: '${new Date(token.expiry * 1000).toISOString()}'.`,
      );
    const scope = pathOf(token.resource);
    for (const rules of this.candidates(scope)) {
      const rule = rules.find((r) => r.keyName === token.keyName);
      if (rule && (signedWith(token, rule.primaryKey) || signedWith(token, rule.secondaryKey))) {
        return { keyName: rule.keyName, rights: rule.rights, scope, expiresAt: token.expiry * 1000 };
      }
    }
    return brokerErrors.unauthorized('InvalidSignature: The token has an invalid signature.');
  }

  /** The namespace's rules, then those of each entity the resource path lies in (a topic's for its subscriptions). */
  private candidates(scope: string): (readonly AuthorizationRule[])[] {
    const out: (readonly AuthorizationRule[])[] = [this.options.namespaceRules];
    const segments = scope.split('/').filter((s) => s !== '');
    for (let n = 1; n <= segments.length; n++) {
      const path = segments.slice(0, n).join('/');
      const rules = this.options.entityRules(path);
      if (rules && rules.length > 0) out.push(rules);
    }
    return out;
  }

  /**
   * Throws Unauthorized unless one of `grants` gives `right` on the entity at `path` now. `resource` names the
   * entity in the message, as Azure's does.
   */
  authorize(grants: readonly Grant[], path: string, right: AccessRight, resource: string, now = Date.now()): void {
    if (this.open) return;
    if (this.live(grants, path, now).some((g) => g.rights.includes(right))) return;
    throw brokerErrors.unauthorized(
      `Unauthorized access. '${right}' claim(s) are required to perform this operation. Resource: '${resource}'.`,
    );
  }

  /** Like {@link authorize}, with any right (a `$management` link, whose operations are checked one by one). */
  authorizeAny(grants: readonly Grant[], path: string, resource: string, now = Date.now()): void {
    if (this.open || this.live(grants, path, now).length > 0) return;
    throw brokerErrors.unauthorized(
      `Unauthorized access. A valid token for '${resource}' is required to perform this operation; put one on $cbs first.`,
    );
  }

  private live(grants: readonly Grant[], path: string, now: number): Grant[] {
    const target = pathOf(path);
    return grants.filter(
      (g) => g.expiresAt > now && (g.scope === '' || target === g.scope || target.startsWith(`${g.scope}/`)),
    );
  }
}
