import { stemmer } from 'stemmer';
import { argumentsOf, callName, findNodes, parameter } from './astTools.js';
import type { AstNode } from './cosmosdbQuery.js';

/*
 * Vector and full-text search functions, by brute force over the documents a query sees. Each call gets a hidden
 * last argument `@__search<i>` the pipeline binds per container: the distance function its vector embedding
 * policy declares for the path (cosine when none does), the language its full-text policy declares (en-US when
 * none does), and for FullTextScore the corpus statistics BM25 needs — the whole query's, which across partition key
 * ranges the SDK gathers first and hands every range (`hybridQueryExecutionContext.js` in `@azure/cosmos`).
 */

/** Search function names (upper case). */
const SEARCH_FUNCTIONS = new Set([
  'VECTORDISTANCE',
  'FULLTEXTCONTAINS',
  'FULLTEXTCONTAINSALL',
  'FULLTEXTCONTAINSANY',
  'FULLTEXTSCORE',
]);

/** A search call of a query, and the document path it reads (`['text']` for `c.text`). */
export interface SearchCall {
  /** The call node (with its hidden argument), to tell which call is which. */
  node: AstNode;
  fn: string;
  path: string[] | undefined;
  /** FullTextScore's terms, when they are literals. */
  terms: string[] | undefined;
}

/** Corpus statistics of one FullTextScore call: documents, words at its path, documents holding each term. */
export interface FullTextStatistics {
  documentCount: number;
  totalWordCount: number;
  hitCounts: number[];
}

/** What the hidden argument of a call carries. */
export interface SearchContext {
  distanceFunction?: string;
  language?: string;
  statistics?: FullTextStatistics;
}

function pathOf(node: AstNode | undefined): string[] | undefined {
  const segments: string[] = [];
  let current = node;
  while (current?.type === 'scalar_member_expression') {
    const property = current['property'] as AstNode;
    segments.unshift(String(current['computed'] === true ? property['value'] : property['name']));
    current = current['object'] as AstNode;
  }
  return current?.type === 'identifier' && segments.length > 0 ? segments : undefined;
}

const isSearchCall = (node: AstNode): boolean => SEARCH_FUNCTIONS.has(callName(node) ?? '');

/** True when a query calls a search function anywhere. */
export function hasSearchCalls(body: AstNode): boolean {
  return findNodes(body, isSearchCall, true).length > 0;
}

/**
 * Gives every search call of a query its hidden argument (in place: run before the query is compiled) and
 * gathers FullTextScore's terms, written as arguments or as one array, into one array argument.
 */
export function bindSearchCalls(body: AstNode): SearchCall[] {
  return findNodes(body, isSearchCall, true).map((node, i) => {
    const fn = callName(node) as string;
    let args = argumentsOf(node);
    let terms: string[] | undefined;
    if (fn === 'FULLTEXTSCORE') {
      const [text, ...rest] = args;
      const list =
        rest.length === 1 && rest[0]?.type === 'array_constant' ? ((rest[0]['elements'] as AstNode[]) ?? []) : rest;
      terms = list.every((t) => t.type === 'string_constant') ? list.map((t) => String(t['value'])) : undefined;
      args = [text ?? { type: 'undefined_constant' }, { type: 'scalar_array_expression', elements: list }];
    }
    node['arguments'] = [...args, parameter(`@__search${i}`)];
    const path = fn === 'VECTORDISTANCE' ? args.map(pathOf).find((p) => p !== undefined) : pathOf(args[0]);
    return { node, fn, path, terms };
  });
}

/** The words of a text as full-text search matches them: lower case, stemmed in English. */
function tokens(text: unknown, language = 'en-US'): string[] {
  if (typeof text !== 'string') return [];
  const words = text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
  return /^en\b|^1033$/i.test(language) ? words.map((w) => stemmer(w)) : words;
}

/** Statistics of `terms` over the texts at one path. */
function fullTextStatistics(texts: unknown[], terms: string[], language: string | undefined): FullTextStatistics {
  const wanted = terms.map((t) => tokens(t, language));
  let totalWordCount = 0;
  const hitCounts = terms.map(() => 0);
  for (const text of texts) {
    const words = tokens(text, language);
    totalWordCount += words.length;
    wanted.forEach((w, i) => {
      if (w.length > 0 && w.every((t) => words.includes(t))) hitCounts[i] = (hitCounts[i] ?? 0) + 1;
    });
  }
  return { documentCount: texts.length, totalWordCount, hitCounts };
}

function contains(text: unknown, term: unknown, language: string | undefined): boolean | undefined {
  if (typeof text !== 'string' || typeof term !== 'string') return undefined;
  const words = tokens(text, language);
  const wanted = tokens(term, language);
  return wanted.length > 0 && wanted.every((w) => words.includes(w));
}

function vectorDistance(a: unknown, b: unknown, fn: string): number | undefined {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length || a.length === 0) return undefined;
  if (!a.every((x) => typeof x === 'number') || !b.every((x) => typeof x === 'number')) return undefined;
  const x = a as number[];
  const y = b as number[];
  let dot = 0;
  let nx = 0;
  let ny = 0;
  let squares = 0;
  for (let i = 0; i < x.length; i++) {
    const xi = x[i] ?? 0;
    const yi = y[i] ?? 0;
    dot += xi * yi;
    nx += xi * xi;
    ny += yi * yi;
    squares += (xi - yi) ** 2;
  }
  switch (fn.toLowerCase()) {
    case 'euclidean':
      return Math.sqrt(squares);
    case 'dotproduct':
      return dot;
    default:
      return nx === 0 || ny === 0 ? undefined : dot / Math.sqrt(nx * ny);
  }
}

/** BM25 (k1 1.2, b 0.75) of a text for terms, under corpus statistics. */
function bm25(text: unknown, terms: unknown, context: SearchContext): number | undefined {
  if (!Array.isArray(terms) || context.statistics === undefined) return undefined;
  const { documentCount, totalWordCount, hitCounts } = context.statistics;
  const words = tokens(text, context.language);
  const average = documentCount === 0 ? 0 : totalWordCount / documentCount;
  let score = 0;
  terms.forEach((term, i) => {
    const wanted = tokens(term, context.language);
    const frequency = wanted.length === 0 ? 0 : words.filter((w) => w === wanted[0]).length;
    if (frequency === 0 || !wanted.every((w) => words.includes(w))) return;
    const hits = hitCounts[i] ?? 0;
    const idf = Math.log(1 + (documentCount - hits + 0.5) / (hits + 0.5));
    score += (idf * frequency * 2.2) / (frequency + 1.2 * (0.25 + (0.75 * words.length) / (average || 1)));
  });
  return score;
}

type Builtin = (...args: unknown[]) => unknown;

/** Splits the hidden context off a call's arguments. */
const split = (args: unknown[]): [unknown[], SearchContext] => [
  args.slice(0, -1),
  (args[args.length - 1] ?? {}) as SearchContext,
];

/** The search functions as the query library calls them (`$b.<NAME>(...args, context)`). */
export const SEARCH_BUILTINS: Record<string, Builtin> = {
  VECTORDISTANCE: (...all) => {
    const [[a, b, , options], context] = split(all);
    const requested = (options as { distanceFunction?: unknown } | undefined)?.distanceFunction;
    return vectorDistance(a, b, typeof requested === 'string' ? requested : (context.distanceFunction ?? 'cosine'));
  },
  FULLTEXTCONTAINS: (...all) => {
    const [[text, term], context] = split(all);
    return contains(text, term, context.language);
  },
  FULLTEXTCONTAINSALL: (...all) => {
    const [[text, ...terms], context] = split(all);
    return typeof text === 'string' ? terms.every((t) => contains(text, t, context.language) === true) : undefined;
  },
  FULLTEXTCONTAINSANY: (...all) => {
    const [[text, ...terms], context] = split(all);
    return typeof text === 'string' ? terms.some((t) => contains(text, t, context.language) === true) : undefined;
  },
  FULLTEXTSCORE: (...all) => {
    const [[text, terms], context] = split(all);
    return bm25(text, terms, context);
  },
};

/** The container policies search calls read (`vectorEmbeddingPolicy`, `fullTextPolicy` as sent at creation). */
export interface SearchPolicies {
  vectorEmbeddingPolicy?: unknown;
  fullTextPolicy?: unknown;
}

function valueAt(doc: unknown, path: string[]): unknown {
  let current = doc;
  for (const segment of path)
    current =
      current !== null && typeof current === 'object' ? (current as Record<string, unknown>)[segment] : undefined;
  return current;
}

/**
 * The hidden argument of every search call, for one run: policy lookups by the call's path, and FullTextScore's
 * statistics — given by `statisticsOf` (a range's share of a cross-range query, gathered by the SDK) or computed
 * over `documents`.
 */
export function searchContexts(
  calls: SearchCall[],
  policies: SearchPolicies,
  documents: unknown[],
  statisticsOf?: (call: SearchCall) => FullTextStatistics | undefined,
): SearchContext[] {
  const path = (call: SearchCall): string => `/${(call.path ?? []).join('/')}`;
  const embeddings =
    (
      policies.vectorEmbeddingPolicy as
        { vectorEmbeddings?: { path?: string; distanceFunction?: string }[] } | undefined
    )?.vectorEmbeddings ?? [];
  const fullText = policies.fullTextPolicy as
    { defaultLanguage?: string; fullTextPaths?: { path?: string; language?: string }[] } | undefined;
  return calls.map((call) => {
    if (call.fn === 'VECTORDISTANCE') {
      const distanceFunction = embeddings.find((e) => e.path === path(call))?.distanceFunction;
      return distanceFunction === undefined ? {} : { distanceFunction };
    }
    const language =
      fullText?.fullTextPaths?.find((p) => p.path === path(call))?.language ?? fullText?.defaultLanguage ?? 'en-US';
    if (call.fn !== 'FULLTEXTSCORE') return { language };
    const given = statisticsOf?.(call);
    if (given !== undefined) return { language, statistics: given };
    const texts = call.path === undefined ? [] : documents.map((d) => valueAt(d, call.path as string[]));
    return { language, statistics: fullTextStatistics(texts, call.terms ?? [], language) };
  });
}
