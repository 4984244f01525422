/**
 * Which deployment `bench:azure` drives: the outputs of `azd up` (infra/main.bicep's `output`s), read from
 * `--azd-env-file <.azure/<env>/.env>`, else from `azd env get-values` when azd is on PATH, else from the environment.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { CliSettings } from '@ledger-convoy/cli';

/** The outputs the bench needs; the others are optional. */
const REQUIRED = [
  'AZURE_FUNCTION_APP_URL',
  'SERVICEBUS_FULLY_QUALIFIED_NAMESPACE',
  'COSMOS_ENDPOINT',
  'COSMOS_DATABASE',
  'COSMOS_CONTAINER',
] as const;

/** The deployment as the bench sees it. */
export interface AzureTarget {
  /** Function app base URL, without a trailing slash. */
  functionAppUrl: string;
  functionKey: string | undefined;
  serviceBusNamespace: string;
  cosmosEndpoint: string;
  cosmosDatabase: string;
  cosmosContainer: string;
  /** For Azure Monitor's metrics; without it the bench reports none. */
  resourceGroup: string | undefined;
  /** Where the values came from: a file, `azd env get-values`, or the environment. */
  source: string;
}

/** Why the deployment cannot be named, with what to do. */
export class AzureEnvError extends Error {
  override readonly name = 'AzureEnvError';
}

/**
 * `KEY=value` lines as azd writes them (`.azure/<env>/.env`, `azd env get-values`): double-quoted values with
 * backslash escapes, single-quoted literal ones, bare ones up to a ` #` comment. Node's `util.parseEnv` keeps `\"`
 * as is, so it cannot read the JSON arrays azd writes (`SERVICEBUS_QUEUES="[\"ledger\",…]"`).
 * @internal
 */
export function parseAzdValues(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (match === null) continue;
    const [, key, raw] = match as unknown as [string, string, string];
    if (raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2)
      values[key] = raw.slice(1, -1).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c === 'r' ? '\r' : c));
    else if (raw.startsWith("'") && raw.endsWith("'") && raw.length >= 2) values[key] = raw.slice(1, -1);
    else values[key] = raw.replace(/\s+#.*$/, '');
  }
  return values;
}

/** The deployment named by `values`, or an {@link AzureEnvError} listing what is missing. */
export function azureTarget(
  values: Readonly<Record<string, string | undefined>>,
  source: string,
  functionKey: string | undefined,
): AzureTarget {
  const missing = REQUIRED.filter((key) => !values[key]?.trim());
  if (missing.length > 0)
    throw new AzureEnvError(
      `${source} lacks ${missing.join(', ')}. Run \`azd up\` first, then run the bench where azd finds the ` +
        'environment (or pass --azd-env-file .azure/<env>/.env, or set them in the environment).',
    );
  const url = (values.AZURE_FUNCTION_APP_URL as string).trim().replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/i.test(url))
    throw new AzureEnvError(`AZURE_FUNCTION_APP_URL must be an http(s) URL, not "${url}".`);
  return {
    functionAppUrl: url,
    functionKey: functionKey ?? (values.CONVOY_FUNCTION_KEY || undefined),
    serviceBusNamespace: (values.SERVICEBUS_FULLY_QUALIFIED_NAMESPACE as string).trim(),
    cosmosEndpoint: (values.COSMOS_ENDPOINT as string).trim(),
    cosmosDatabase: (values.COSMOS_DATABASE as string).trim(),
    cosmosContainer: (values.COSMOS_CONTAINER as string).trim(),
    resourceGroup: values.AZURE_RESOURCE_GROUP?.trim() || undefined,
    source,
  };
}

/**
 * The CLI's settings for the deployment: identity connections (`DefaultAzureCredential`, i.e. `az login` or the
 * workflow's federated login) and nothing from `local.settings.json`, so a local emulator setting cannot leak in.
 */
export function cliSettingsOf(target: AzureTarget): CliSettings {
  return {
    app: {
      ServiceBusConnection__fullyQualifiedNamespace: target.serviceBusNamespace,
      CosmosConnection__accountEndpoint: target.cosmosEndpoint,
      COSMOS_DATABASE: target.cosmosDatabase,
      COSMOS_CONTAINER: target.cosmosContainer,
    },
    httpBaseUrl: target.functionAppUrl,
    functionKey: target.functionKey,
    embeddedDefaults: [],
  };
}

/** Runs `azd env get-values`; resolves `undefined` when azd is not on PATH. */
type AzdValues = (environment: string | undefined) => Promise<string | undefined>;

/** Where {@link readAzureValues} looks. */
export interface AzureValuesSources {
  envFile?: string;
  /** `azd -e <name>`; azd's default environment otherwise. */
  environment?: string;
  azd?: AzdValues;
  env?: NodeJS.ProcessEnv;
}

/** The azd outputs and where they came from: `--azd-env-file`, else azd on PATH, else the environment. */
export async function readAzureValues(
  sources: AzureValuesSources,
): Promise<{ values: Record<string, string | undefined>; source: string }> {
  const env = sources.env ?? process.env;
  if (sources.envFile !== undefined) {
    let text: string;
    try {
      text = await readFile(sources.envFile, 'utf8');
    } catch (error) {
      throw new AzureEnvError(`Cannot read --azd-env-file ${sources.envFile}: ${(error as Error).message}`);
    }
    return { values: withKeyFrom(env, parseAzdValues(text)), source: sources.envFile };
  }
  const azdText = await (sources.azd ?? azdEnvGetValues)(sources.environment);
  if (azdText !== undefined) return { values: withKeyFrom(env, parseAzdValues(azdText)), source: 'azd env get-values' };
  return { values: { ...env }, source: 'the environment' };
}

/** The function key of the environment wins over one kept in the azd environment (`azd env set`). */
function withKeyFrom(env: NodeJS.ProcessEnv, values: Record<string, string>): Record<string, string | undefined> {
  return env.CONVOY_FUNCTION_KEY ? { ...values, CONVOY_FUNCTION_KEY: env.CONVOY_FUNCTION_KEY } : values;
}

const run = promisify(execFile);

async function azdEnvGetValues(environment: string | undefined): Promise<string | undefined> {
  try {
    const { stdout } = await run('azd', ['env', 'get-values', ...(environment ? ['-e', environment] : [])]);
    return stdout;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new AzureEnvError(`\`azd env get-values\` failed: ${stderr || (error as Error).message}`);
  }
}
