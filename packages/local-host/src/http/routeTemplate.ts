/**
 * Function route templates as the host reads them (ASP.NET routing subset): literal segments, `{name}`,
 * `{name?}` (optional, last segments only), `{*name}` (catch-all, last) and the constraints `int`, `long`,
 * `alpha`, `bool`, `guid` (`{orderId:guid}`). Literals match case-insensitively; values are URL-decoded.
 */
export interface RouteTemplate {
  readonly template: string;
  /** The route parameters when `path` (no leading slash, no `/api`) matches, else undefined. */
  match(path: string): Record<string, string> | undefined;
}

type Segment =
  | { kind: 'literal'; text: string }
  | { kind: 'param'; name: string; optional: boolean; catchAll: boolean; test: (value: string) => boolean };

const CONSTRAINTS: Record<string, (value: string) => boolean> = {
  int: (v) => /^-?\d{1,10}$/.test(v) && Math.abs(Number(v)) <= 2 ** 31,
  long: (v) => /^-?\d{1,19}$/.test(v),
  alpha: (v) => /^[A-Za-z]+$/.test(v),
  bool: (v) => /^(true|false)$/i.test(v),
  guid: (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
};

/**
 * Compiles a route template.
 * @throws TypeError for syntax the local host does not support, so a route never silently fails to match.
 */
export function compileRoute(template: string): RouteTemplate {
  const trimmed = template.replace(/^\/+|\/+$/g, '');
  const segments = trimmed === '' ? [] : trimmed.split('/').map((s) => parseSegment(s, template));
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment.kind === 'param' && segment.catchAll && !last)
      throw new TypeError(`route "${template}": catch-all must be last`);
    if (segment.kind === 'param' && segment.optional && segments.slice(i + 1).some((s) => s.kind === 'literal')) {
      throw new TypeError(`route "${template}": an optional parameter may only be followed by optional ones`);
    }
  });
  return {
    template,
    match(path: string) {
      const parts = path
        .replace(/^\/+|\/+$/g, '')
        .split('/')
        .filter((p) => p !== '');
      const params: Record<string, string> = {};
      for (let i = 0; i < segments.length; i += 1) {
        const segment = segments[i];
        const part = parts[i];
        if (!segment) return undefined;
        if (segment.kind === 'literal') {
          if (part === undefined || part.toLowerCase() !== segment.text.toLowerCase()) return undefined;
          continue;
        }
        if (part === undefined) {
          if (segment.optional || segment.catchAll) continue;
          return undefined;
        }
        const value = segment.catchAll ? parts.slice(i).map(decode).join('/') : decode(part);
        if (value === undefined || !segment.test(value)) return undefined;
        params[segment.name] = value;
        if (segment.catchAll) return params;
      }
      return parts.length <= segments.length ? params : undefined;
    },
  };
}

function parseSegment(text: string, template: string): Segment {
  const param = /^\{(\*)?([A-Za-z_][A-Za-z0-9_]*)(?::([a-z]+))?(\?)?\}$/.exec(text);
  if (!param) {
    if (/[{}]/.test(text)) throw new TypeError(`route "${template}": unsupported segment "${text}"`);
    return { kind: 'literal', text };
  }
  const [, star, name = '', constraint, optional] = param;
  const test = constraint === undefined ? () => true : CONSTRAINTS[constraint];
  if (!test) throw new TypeError(`route "${template}": unsupported constraint "${constraint ?? ''}"`);
  return { kind: 'param', name, optional: optional === '?', catchAll: star === '*', test };
}

function decode(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}
