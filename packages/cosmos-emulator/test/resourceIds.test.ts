import type { Container } from '@azure/cosmos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { masterKeyAuth, startHarness } from './harness.js';
import type { Harness } from './harness.js';

/*
 * The .NET SDK decodes resource ids (ResourceIdentifier.TryParse in azure-cosmos-dotnet-v3) and addresses
 * partition key ranges and caches by them, signing such requests with the lower-cased rid. These tests decode
 * with the SDK's rules, written out here independently of the emulator's code.
 */
type Kind = 'database' | 'container' | 'document' | 'pkrange' | 'user' | 'other';

function decodeLikeDotnet(rid: string): Kind {
  const bytes = Buffer.from(rid.replace(/-/g, '/'), 'base64');
  if (bytes.length === 4) return 'database';
  if (bytes.length < 8) return 'other';
  if ((bytes[4]! & 0x80) === 0) return 'user';
  if (bytes.length === 8) return 'container';
  const childType = bytes[15]! >> 4;
  return childType === 0 ? 'document' : childType === 5 ? 'pkrange' : 'other';
}

/** A request signed as the .NET SDK signs a rid-addressed one: the link is the last rid, lower-cased. */
function ridRequest(
  h: Harness,
  path: string,
  signedLink: string,
  resourceType: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const date = new Date().toUTCString();
  return fetch(new URL(path, h.emulator.endpoint), {
    headers: {
      'x-ms-date': date,
      'x-ms-version': '2020-07-15',
      authorization: masterKeyAuth(h.emulator.key, 'GET', resourceType, signedLink, date),
      ...headers,
    },
  });
}

let h: Harness;
let orders: Container;
let dbRid: string;
let collRid: string;

beforeAll(async () => {
  h = await startHarness();
  orders = await h.container();
  collRid = (await orders.read()).resource!._rid;
  dbRid = (await orders.database.read()).resource!._rid;
});
afterAll(async () => {
  await h.close();
});

describe('resource ids', () => {
  it('decode as their resource type with the .NET SDK rules, for every container created', async () => {
    const kinds = new Set<Kind>();
    // Container ids carry random bytes: the collection bit must be set for each of them, not by chance.
    for (let i = 0; i < 20; i++) {
      const res = (
        await (await h.database()).containers.create({ id: `rid-${i}`, partitionKey: { paths: ['/orderId'] } })
      ).resource!;
      kinds.add(decodeLikeDotnet(res._rid));
      expect(Buffer.from(res._rid.replace(/-/g, '/'), 'base64').subarray(0, 4)).toEqual(
        Buffer.from(dbRid.replace(/-/g, '/'), 'base64'),
      );
    }
    expect([...kinds]).toEqual(['container']);
    expect(decodeLikeDotnet(dbRid)).toBe('database');
    const doc = (await orders.items.create({ id: 'd1', orderId: 'o1' })).resource!;
    expect(decodeLikeDotnet(doc._rid)).toBe('document');
    const ranges = await orders.readPartitionKeyRanges().fetchAll();
    const rids = ranges.resources.map((r) => (r as unknown as { _rid: string })._rid);
    expect(rids.map(decodeLikeDotnet)).toEqual(rids.map(() => 'pkrange'));
    expect(new Set(rids).size).toBe(rids.length);
  });

  it('serve partition key ranges by rid, signed with the lower-cased container rid, with an ETag and then 304', async () => {
    const path = `/dbs/${dbRid}/colls/${collRid}/pkranges`;
    const first = await ridRequest(h, path, collRid.toLowerCase(), 'pkranges', { 'a-im': 'Incremental Feed' });
    expect(first.status).toBe(200);
    const body = (await first.json()) as {
      PartitionKeyRanges: { id: string; minInclusive: string; maxExclusive: string }[];
    };
    const byName = await orders.readPartitionKeyRanges().fetchAll();
    expect(body.PartitionKeyRanges.map((r) => r.id)).toEqual(byName.resources.map((r) => r.id));
    expect(body.PartitionKeyRanges[0]?.minInclusive).toBe('');
    expect(body.PartitionKeyRanges.at(-1)?.maxExclusive).toBe('FF');
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await ridRequest(h, path, collRid.toLowerCase(), 'pkranges', {
      'a-im': 'Incremental Feed',
      'if-none-match': etag!,
    });
    expect(again.status).toBe(304);
    const named = await ridRequest(
      h,
      `/${orders.url.replace(/^\//, '')}/pkranges`,
      orders.url.replace(/^\//, ''),
      'pkranges',
    );
    expect(named.status).toBe(200);
  });

  it('address containers and documents by rid', async () => {
    const doc = (await orders.items.create({ id: 'by-rid', orderId: 'o2' })).resource!;
    const coll = await ridRequest(h, `/dbs/${dbRid}/colls/${collRid}`, collRid.toLowerCase(), 'colls');
    expect(coll.status).toBe(200);
    expect(((await coll.json()) as { id: string }).id).toBe(orders.id);
    const read = await ridRequest(
      h,
      `/dbs/${dbRid}/colls/${collRid}/docs/${doc._rid}`,
      doc._rid.toLowerCase(),
      'docs',
      { 'x-ms-documentdb-partitionkey': '["o2"]' },
    );
    expect(read.status).toBe(200);
    expect(((await read.json()) as { id: string }).id).toBe('by-rid');
  });

  it('refuse a rid-addressed request signed for another resource with 401', async () => {
    const res = await ridRequest(h, `/dbs/${dbRid}/colls/${collRid}/pkranges`, dbRid.toLowerCase(), 'pkranges');
    expect(res.status).toBe(401);
  });

  it('answer 404 for a well-formed rid of no container', async () => {
    const bytes = Buffer.from(collRid.replace(/-/g, '/'), 'base64');
    bytes[7] = bytes[7]! ^ 0xff;
    const other = bytes.toString('base64').replace(/\//g, '-');
    const res = await ridRequest(h, `/dbs/${dbRid}/colls/${other}/pkranges`, other.toLowerCase(), 'pkranges');
    expect(res.status).toBe(404);
  });
});
