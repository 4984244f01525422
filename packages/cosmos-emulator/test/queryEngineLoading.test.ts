import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/*
 * The SQL query engine (@zeit/cosmosdb-query's Babel and Turf) is most of what loading the emulator costs, so it
 * loads after the emulator accepts, and Turf only for the first spatial function. Each case runs in a process of its own: the engine is loaded once per process.
 */

const repo = fileURLToPath(new URL('../../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'query-engine-'));
/** The SDK as the repository resolves it (the cases run from a temporary directory). */
const cosmosSdk = pathToFileURL(createRequire(join(repo, 'package.json')).resolve('@azure/cosmos')).href;

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `body` after starting an emulator with `options`; resolves to what it printed as JSON. */
function inProcessOfItsOwn(options: string, body: string): unknown {
  const file = join(dir, `case-${Math.random().toString(36).slice(2)}.mts`);
  writeFileSync(
    file,
    `
    import { createRequire } from 'node:module';
    import { CosmosClient } from ${JSON.stringify(cosmosSdk)};
    import { start } from ${JSON.stringify(join(repo, 'packages/cosmos-emulator/src/index.ts'))};
    const cache = createRequire(import.meta.url).cache;
    // The engine's weight: Babel's transformer and printer.
    const engineLoaded = () => Object.keys(cache).some((path) => path.includes('/node_modules/@babel/'));
    // Turf, for the spatial functions: its module, or the stand-in the emulator puts in its place until one runs.
    const turf = () => Object.entries(cache).find(([path]) => path.includes('/node_modules/@turf/'))?.[1]?.exports;
    const turfLoaded = () => turf() !== undefined && 'earthRadius' in turf();
    const untilLoaded = async () => { while (!engineLoaded()) await new Promise((resolve) => setImmediate(resolve)); };
    const emulator = await start({ port: 0, ${options} });
    const openContainer = async () => {
      const client = new CosmosClient({ endpoint: emulator.endpoint, key: emulator.key, connectionPolicy: { enableEndpointDiscovery: false } });
      const { database } = await client.databases.createIfNotExists({ id: 'db' });
      const { container } = await database.containers.createIfNotExists({ id: 'c', partitionKey: { paths: ['/pk'] } });
      return { client, container };
    };
    const accepting = engineLoaded();
    const result = await (async () => { ${body} })();
    await emulator.close();
    process.stdout.write(JSON.stringify({ accepting, ...result }));
    `,
  );
  return JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: repo, encoding: 'utf8' }));
}

describe('the Cosmos emulator query engine', () => {
  it('is not loaded when the emulator starts accepting, and then loads in the background without a query', () => {
    expect(inProcessOfItsOwn('', 'await untilLoaded(); return { loaded: engineLoaded() };')).toEqual({
      accepting: false,
      loaded: true,
    });
  });

  it('with preloadQueryEngine false, loads when asked', () => {
    const result = inProcessOfItsOwn(
      'preloadQueryEngine: false',
      'emulator.preloadQueryEngine(); await untilLoaded(); return { loaded: engineLoaded() };',
    );
    expect(result).toEqual({ accepting: false, loaded: true });
  });

  it('with preloadQueryEngine false, loads for the first query, which is answered', () => {
    const result = inProcessOfItsOwn(
      'preloadQueryEngine: false',
      `
      const { client, container } = await openContainer();
      await container.items.create({ id: 'a', pk: 'p', n: 1 });
      const beforeQuery = engineLoaded();
      const { resources } = await container.items.query('SELECT VALUE c.n FROM c WHERE c.id = "a"').fetchAll();
      client.dispose();
      return { beforeQuery, resources, loaded: engineLoaded() };
      `,
    );
    expect(result).toEqual({ accepting: false, beforeQuery: false, resources: [1], loaded: true });
  });

  it('loads Turf only with the first spatial function, which is answered', () => {
    const result = inProcessOfItsOwn(
      'preloadQueryEngine: false',
      `
      const { client, container } = await openContainer();
      await container.items.create({ id: 'a', pk: 'p', at: { type: 'Point', coordinates: [0, 0] } });
      const plain = (await container.items.query('SELECT VALUE c.id FROM c').fetchAll()).resources;
      const turfBefore = { standIn: turf() !== undefined, loaded: turfLoaded() };
      const query = 'SELECT VALUE ST_DISTANCE(c.at, {"type": "Point", "coordinates": [0, 1]}) FROM c';
      const [metres] = (await container.items.query(query).fetchAll()).resources;
      client.dispose();
      return { plain, turfBefore, metres: Math.round(metres / 1000), turfAfter: turfLoaded() };
      `,
    );
    // One degree of latitude on Turf's sphere: 111 km.
    expect(result).toEqual({
      accepting: false,
      plain: ['a'],
      turfBefore: { standIn: true, loaded: false },
      metres: 111,
      turfAfter: true,
    });
  });
});
