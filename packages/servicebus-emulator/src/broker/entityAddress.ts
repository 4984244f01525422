/** A parsed link address. */
export interface EntityAddress {
  /** Entity path without sub-queue, lower-cased for lookup. */
  key: string;
  /** Entity path as written (for messages). */
  path: string;
  deadLetter: boolean;
  management: boolean;
}

/**
 * Normalises a link address: the .NET SDK sends `/queue`, some clients the full `sb://host/queue` form;
 * entity names are case-insensitive in Service Bus.
 */
export function parseAddress(address: string): EntityAddress {
  let path = address
    .replace(/^(amqps?|sb):\/\/[^/]+/i, '')
    .replace(/^\/+/, '')
    .replace(/\/+$/, '');
  let management = false;
  let deadLetter = false;
  if (/\/\$management$/i.test(path)) {
    management = true;
    path = path.replace(/\/\$management$/i, '');
  }
  if (/\/\$deadletterqueue$/i.test(path)) {
    deadLetter = true;
    path = path.replace(/\/\$deadletterqueue$/i, '');
  }
  return { key: path.toLowerCase(), path, deadLetter, management };
}
