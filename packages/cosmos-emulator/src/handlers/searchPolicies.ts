import { badRequest } from '../errors/errorFactory.js';
import type { ContainerResource, JsonObject } from '../store/types.js';

/*
 * The vector search settings of a container, checked as the service checks them: every vector index names a path
 * of the vector embedding policy, embeddings have a known data type and distance function and 1 to 1,536
 * dimensions, and neither the embeddings nor the vector indexes change once the container exists.
 */

const DATA_TYPES = ['float32', 'float16', 'uint8', 'int8'];
const DISTANCE_FUNCTIONS = ['cosine', 'dotproduct', 'euclidean'];
const INDEX_TYPES = ['flat', 'quantizedflat', 'diskann'];
const MAX_DIMENSIONS = 1536;

type Embedding = { path?: unknown; dataType?: unknown; dimensions?: unknown; distanceFunction?: unknown };

const embeddingsOf = (body: JsonObject): Embedding[] =>
  (body['vectorEmbeddingPolicy'] as { vectorEmbeddings?: Embedding[] } | undefined)?.vectorEmbeddings ?? [];
const vectorIndexesOf = (body: JsonObject): { path?: unknown; type?: unknown }[] =>
  (body['indexingPolicy'] as { vectorIndexes?: { path?: unknown; type?: unknown }[] } | undefined)?.vectorIndexes ?? [];

/** Checks a container definition's vector embedding policy and vector indexes. @throws 400 naming what is wrong. */
export function checkSearchPolicies(body: JsonObject): void {
  const embeddings = embeddingsOf(body);
  for (const e of embeddings) {
    if (typeof e.path !== 'string' || !e.path.startsWith('/'))
      throw badRequest(`Vector Embedding Policy has an invalid path: ${JSON.stringify(e.path)}.`);
    if (typeof e.dataType !== 'string' || !DATA_TYPES.includes(e.dataType.toLowerCase()))
      throw badRequest(`Vector Embedding Policy has an invalid dataType: ${JSON.stringify(e.dataType)}.`);
    if (typeof e.distanceFunction !== 'string' || !DISTANCE_FUNCTIONS.includes(e.distanceFunction.toLowerCase())) {
      throw badRequest(
        `Vector Embedding Policy has an invalid distanceFunction: ${JSON.stringify(e.distanceFunction)}.`,
      );
    }
    if (typeof e.dimensions !== 'number' || !Number.isInteger(e.dimensions) || e.dimensions < 1) {
      throw badRequest(
        `Vector Embedding Policy has invalid Dimensions:${String(e.dimensions)}, it should be positive integer.`,
      );
    }
    if (e.dimensions > MAX_DIMENSIONS)
      throw badRequest(
        `Vector Embedding Policy has Dimensions:${e.dimensions} which is more than max:${MAX_DIMENSIONS}.`,
      );
  }
  for (const index of vectorIndexesOf(body)) {
    if (typeof index.type !== 'string' || !INDEX_TYPES.includes(index.type.toLowerCase()))
      throw badRequest(`Vector Indexing Policy has an invalid type: ${JSON.stringify(index.type)}.`);
    if (embeddings.length === 0)
      throw badRequest('Vector Indexing Policy needs a Vector Embedding Policy for its paths.');
    if (!embeddings.some((e) => e.path === index.path))
      throw badRequest(`Vector Indexing Policy's path::${String(index.path)} not matching in Embedding's path.`);
  }
}

/** Checks that a replace keeps the vector embeddings and vector indexes. @throws 400 naming what changed. */
export function checkSearchPolicyChange(current: ContainerResource, body: JsonObject): void {
  if (
    body['vectorEmbeddingPolicy'] !== undefined &&
    JSON.stringify(embeddingsOf(body)) !== JSON.stringify(embeddingsOf(current))
  ) {
    throw badRequest('The Vector Embedding Policy of a container cannot be changed.');
  }
  if (
    body['indexingPolicy'] !== undefined &&
    JSON.stringify(vectorIndexesOf(body)) !== JSON.stringify(vectorIndexesOf(current))
  ) {
    throw badRequest('The vector indexes of an Indexing Policy cannot be changed.');
  }
}
