import { createRequire } from 'node:module';
import type { XMLParser as Parser, XMLValidator as Validator } from 'fast-xml-parser';
import { brokerErrors } from '../../errors/brokerError.js';

/** XML namespaces of the Service Bus ATOM API. */
export const NS = {
  atom: 'http://www.w3.org/2005/Atom',
  sb: 'http://schemas.microsoft.com/netservices/2010/10/servicebus/connect',
  xsi: 'http://www.w3.org/2001/XMLSchema-instance',
  xsd: 'http://www.w3.org/2001/XMLSchema',
  counts: 'http://schemas.microsoft.com/netservices/2011/06/servicebus',
} as const;

/** Escapes text for an element or attribute. */
export function esc(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** An element; `content` is raw XML (already built) or text when `text` is used. */
export function el(
  name: string,
  content: string | readonly (string | undefined)[] = '',
  attrs: Record<string, string> = {},
): string {
  const a = Object.entries(attrs)
    .map(([k, v]) => ` ${k}="${esc(v)}"`)
    .join('');
  const body = typeof content === 'string' ? content : content.filter((c) => c !== undefined).join('');
  return body === '' ? `<${name}${a}/>` : `<${name}${a}>${body}</${name}>`;
}

/** An element holding text (escaped). */
export function text(name: string, value: string | number | boolean, attrs: Record<string, string> = {}): string {
  return el(name, esc(String(value)), attrs);
}

/** A parsed XML element: child elements by local name, attributes as `@name` (prefixes removed), text as `#text`. */
export type XmlNode = Record<string, unknown>;

// The parser is loaded with the first request body: the management API is seldom used, and it is a tenth of the
// emulator's load.
let reader: { parser: Parser; validator: typeof Validator } | undefined;
function xmlReader(): { parser: Parser; validator: typeof Validator } {
  if (reader !== undefined) return reader;
  const { XMLParser, XMLValidator } = createRequire(import.meta.url)('fast-xml-parser') as {
    XMLParser: typeof Parser;
    XMLValidator: typeof Validator;
  };
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    isArray: (name) => name === 'KeyValueOfstringanyType' || name === 'AuthorizationRule',
  });
  reader = { parser, validator: XMLValidator };
  return reader;
}

/**
 * Reads a PUT body: an ATOM `entry` whose `content` holds one description element. Returns that element's
 * local name and content; a body that is not one is refused with a 400 naming what is wrong.
 */
export function readEntry(body: string): { kind: string; description: XmlNode } {
  const { parser, validator } = xmlReader();
  const valid = validator.validate(body);
  if (valid !== true)
    throw brokerErrors.badRequest(
      `The request body is not valid XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col}).`,
    );
  const doc = parser.parse(body) as XmlNode;
  const entry = doc.entry as XmlNode | undefined;
  const content = entry && typeof entry === 'object' ? (entry.content as XmlNode | undefined) : undefined;
  if (!content || typeof content !== 'object')
    throw brokerErrors.badRequest('The request body must be an ATOM entry with a content element.');
  const kind = Object.keys(content).find((k) => !k.startsWith('@') && k !== '#text');
  if (!kind) throw brokerErrors.badRequest('The entry content holds no description.');
  const description = content[kind];
  return { kind, description: description && typeof description === 'object' ? (description as XmlNode) : {} };
}

/** The text of a child element, or undefined when absent. */
export function childText(node: XmlNode, name: string): string | undefined {
  const v = node[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'object') {
    const t = (v as XmlNode)['#text'];
    return t === undefined ? '' : String(t);
  }
  return String(v);
}

/** A child element as a node (empty when it is absent or holds only text). */
export function child(node: XmlNode, name: string): XmlNode | undefined {
  const v = node[name];
  if (v === undefined || v === null) return undefined;
  return typeof v === 'object' ? (v as XmlNode) : {};
}

/** The `i:type` of an element, without its namespace prefix. */
export function xsiType(node: XmlNode): string | undefined {
  const t = node['@type'];
  return typeof t === 'string' ? t.replace(/^[^:]*:/, '') : undefined;
}
