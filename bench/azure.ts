/**
 * A deployment at load (`npm run bench:azure [-- --rates 10,50,100 --seconds 60]`).
 *
 * Drives the app `azd up` deployed — named by the azd environment's outputs: `--azd-env-file .azure/<env>/.env`, else
 * `azd env get-values` when azd is on PATH, else the environment (`AZURE_FUNCTION_APP_URL`,
 * `SERVICEBUS_FULLY_QUALIFIED_NAMESPACE`, `COSMOS_ENDPOINT`, `COSMOS_DATABASE`, `COSMOS_CONTAINER`,
 * `AZURE_RESOURCE_GROUP`), the function key from `--function-key` or `CONVOY_FUNCTION_KEY` — with the CLI's own
 * `send --to http --rate <r>` and `verify`, one step per rate. Per step it prints the entries/s sent and applied,
 * the latency from a ledger's POST to its entries applied (a few orders watched through `GET /api/orders/{id}`),
 * whether `verify` found every order as expected (nothing lost, doubled or reordered), the request units Cosmos DB
 * charged for the bench's own reads, and, when `az` is on PATH and logged in, Azure Monitor's request units and
 * Service Bus messages per entry. Service Bus and Cosmos DB are reached with `DefaultAzureCredential` (`az login`,
 * or the workflow's federated login), which needs the data roles `AZURE_PRINCIPAL_ID` gets (docs/benchmarks.md).
 * It cannot run without a deployment; `.github/workflows/bench-azure.yml` deploys one, runs this, and removes it.
 */
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FunctionApi, openServiceBus, peekAll, table, type CliSettings } from '@ledger-convoy/cli';
import { benchArgs, wholeArg } from './support/benchArgs.js';
import { AzureEnvError, azureTarget, cliSettingsOf, readAzureValues } from './support/azureEnv.js';
import { openAzureMetrics, untilNextMinute, type WindowMetrics } from './support/azureMonitor.js';
import { runStep, stepRun, type StepResult } from './support/azureStep.js';

const USAGE = `Usage: npm run bench:azure [-- options]
  --rates <r,r,…>          entries/s offered, one step each (default 10,50,100)
  --seconds <n>            seconds of sending per step (default 60)
  --azd-env-file <file>    the azd environment's .env (default: azd env get-values, else the environment)
  --environment <name>     azd environment to read (default: azd's default)
  --function-key <key>     function key (default: $CONVOY_FUNCTION_KEY)
  --seed <n>               seed of the generated runs (default: random)
  --metrics-wait <s>       wait before reading Azure Monitor, which ingests minutes late (default 240)`;
const values = benchArgs(USAGE, {
  rates: { type: 'string', default: '10,50,100' },
  seconds: { type: 'string', default: '60' },
  'azd-env-file': { type: 'string' },
  environment: { type: 'string' },
  'function-key': { type: 'string' },
  seed: { type: 'string' },
  'metrics-wait': { type: 'string', default: '240' },
});
const rates = values.rates.split(',').map((r) => wholeArg(USAGE, r.trim(), 1, 'rates'));
const seconds = wholeArg(USAGE, values.seconds, 1, 'seconds');
const seed = values.seed === undefined ? randomInt(0, 2 ** 31) : wholeArg(USAGE, values.seed, 0, 'seed');
const metricsWaitMs = wholeArg(USAGE, values['metrics-wait'], 0, 'metrics-wait') * 1000;

const READY_TIMEOUT_MS = 600_000;

let settings: CliSettings;
let target: ReturnType<typeof azureTarget>;
try {
  const { values: outputs, source } = await readAzureValues({
    envFile: values['azd-env-file'],
    environment: values.environment,
  });
  target = azureTarget(outputs, source, values['function-key']);
  settings = cliSettingsOf(target);
} catch (error) {
  if (!(error instanceof AzureEnvError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(2);
}
const opened = await openAzureMetrics(target);

const shape = stepRun({ rate: rates[0] as number, seconds, seed, run: 'x' });
console.log(`bench:azure — ${target.functionAppUrl} (outputs from ${target.source})`);
console.log(
  `  Service Bus ${target.serviceBusNamespace}, Cosmos DB ${target.cosmosEndpoint} ${target.cosmosDatabase}/${target.cosmosContainer}`,
);
console.log(
  `  function key: ${values['function-key'] ? '--function-key' : target.functionKey ? '$CONVOY_FUNCTION_KEY' : 'none (anonymous)'}`,
);
console.log(
  `  steps: ${rates.join(', ')} entries/s × ${seconds} s, orders of ${shape.entries} entries in ledgers of ~20, ` +
    `no duplicates or deletions; seed ${seed}`,
);
console.log(
  `  request units: ${opened.metrics === undefined ? `Azure Monitor not read — ${opened.why}` : opened.metrics.description}; ` +
    "and Cosmos DB's x-ms-request-charge for the bench's own reads of the watched orders",
);

await waitUntilReady(settings);
const results: StepResult[] = [];
for (const [i, rate] of rates.entries()) {
  // Steps start on a whole minute, so Azure Monitor's one-minute figures belong to one step each.
  if (opened.metrics !== undefined) await sleep(untilNextMinute(Date.now()));
  const result = await runStep(settings, { rate, seconds, seed: seed + i, run: `bz${seed.toString(36)}s${i}` });
  results.push(result);
  console.log(
    `step ${i + 1}/${rates.length}: ${rate} entries/s offered — sent ${result.sentPerSecond.toFixed(1)}/s ` +
      `(latest POST ${result.maxLagMs} ms behind), applied ${result.appliedPerSecond.toFixed(1)}/s, ` +
      `latency p50 ${result.latency.p50Ms} ms p99 ${result.latency.p99Ms} ms, verify ${result.verify.outcome}`,
  );
}

let metrics: (WindowMetrics | undefined)[] = results.map(() => undefined);
if (opened.metrics !== undefined) {
  const last = results[results.length - 1]?.window.end ?? Date.now();
  const wait = Math.max(0, last + metricsWaitMs - Date.now());
  console.log(`waiting ${Math.round(wait / 1000)} s for Azure Monitor to ingest the last minutes …`);
  await sleep(wait);
  const reader = opened.metrics;
  metrics = await Promise.all(results.map((r) => reader.read(r.window).catch(() => undefined)));
}

console.log('');
console.log(
  table(
    [
      'offered/s',
      'sent/s',
      'applied/s',
      'p50 ms',
      'p99 ms',
      'max ms',
      'drain s',
      'RU/entry (Monitor)',
      'SB msgs/entry (Monitor)',
      'RU/order read',
      'verify',
    ],
    results.map((r, i) => {
      const m = metrics[i];
      const perEntry = (n: number | undefined) => (n === undefined ? '–' : (n / r.entries).toFixed(2));
      const bus =
        m?.serviceBusIncoming === undefined || m.serviceBusOutgoing === undefined
          ? undefined
          : m.serviceBusIncoming + m.serviceBusOutgoing;
      return [
        r.rate,
        r.sentPerSecond.toFixed(1),
        r.appliedPerSecond.toFixed(1),
        r.latency.p50Ms,
        r.latency.p99Ms,
        r.latency.maxMs,
        (r.drainMs / 1000).toFixed(1),
        perEntry(m?.requestUnits),
        perEntry(bus),
        'error' in r.readCharge
          ? `– (${r.readCharge.error})`
          : (r.readCharge.requestUnits / r.readCharge.orders).toFixed(2),
        r.verify.ok
          ? `ok: ${r.verify.matched}/${r.verify.expected} orders`
          : `${r.verify.outcome}: ${r.verify.mismatched} mismatched, ${r.verify.missing} missing of ${r.verify.expected}`,
      ];
    }),
    90,
  ),
);
console.log(
  '\nsent/s: entries over the first POST to the last answer; applied/s: over the first POST to verify matching ' +
    '(verify looks about once a second); latency: POST → the order showing the entry, looked at every 500 ms; ' +
    "Monitor's figures include the watching's GETs (" +
    results.map((r) => r.watchReads).join(', ') +
    ' per step) and the outbox relay.',
);
if (results.some((r) => !r.verify.ok)) {
  console.log('\nverify did not match in every step: something was lost, doubled or reordered (see above).');
  process.exit(1);
}

/** Waits until the function app answers with the key and Service Bus lets this principal peek (roles take minutes). */
async function waitUntilReady(cli: CliSettings): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const api = new FunctionApi(cli);
  for (let attempt = 1; ; attempt++) {
    try {
      await api.getOrder('bench-ready-probe');
      const client = await openServiceBus(cli);
      try {
        await peekAll(client, 'orders', 'deadLetter', 1);
      } finally {
        await client.close();
      }
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      console.log(`  not ready yet (attempt ${attempt}): ${(error as Error).message.split('\n')[0]}`);
      await sleep(15_000);
    }
  }
}
