/**
 * Helpers for reading compiled ARM templates and Bicep deployment snapshots in the infra tests.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { BicepRestoreError, findBicepCompiler } from '../../scripts/infraBuild.js';
import type { BicepCompiler } from '../../scripts/infraBuild.js';

/** Repository root. */
export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

/**
 * The Bicep compiler the template tests use, or `undefined` (suites skip) when the machine has none.
 * A missing compiler or a failed NuGet restore skips visibly on a developer machine, but fails under `CI`.
 */
export function locateBicepCompiler(): BicepCompiler | undefined {
  let compiler: BicepCompiler | undefined;
  try {
    compiler = findBicepCompiler({ rootDir: REPO_ROOT, log: () => undefined });
  } catch (error) {
    if (error instanceof BicepRestoreError && !process.env.CI) return undefined;
    throw error;
  }
  if (!compiler && process.env.CI) {
    throw new Error(
      'CI is set but no Bicep compiler was found (bicep, az bicep, or dotnet to restore Azure.Bicep.CommandLine): the infra suites must not skip in CI.',
    );
  }
  return compiler;
}

/** A resource of an ARM template, as JSON. */
export interface ArmResource {
  readonly type: string;
  readonly name: string;
  readonly apiVersion?: string;
  readonly properties?: Record<string, unknown>;
  readonly copy?: { readonly name: string; readonly count: string };
  readonly [key: string]: unknown;
}

/** An ARM template, as JSON. */
export interface ArmTemplate {
  readonly variables?: Record<string, unknown>;
  readonly parameters?: Record<string, unknown>;
  readonly resources: readonly ArmResource[] | Record<string, ArmResource>;
  readonly outputs?: Record<string, unknown>;
}

/** A resource together with the (nested) template that declares it. */
export interface DeclaredResource {
  readonly resource: ArmResource;
  readonly template: ArmTemplate;
  /** Names of the module deployments leading to it, outermost first. */
  readonly modulePath: readonly string[];
}

/** Every resource of a template, including those of nested module deployments. */
export function declaredResources(template: ArmTemplate, modulePath: readonly string[] = []): DeclaredResource[] {
  const list = Array.isArray(template.resources) ? template.resources : Object.values(template.resources);
  return list.flatMap((resource) => {
    const own: DeclaredResource = { resource, template, modulePath };
    const nested = (resource.properties?.template as ArmTemplate | undefined) ?? undefined;
    return resource.type === 'Microsoft.Resources/deployments' && nested
      ? [own, ...declaredResources(nested, [...modulePath, resource.name])]
      : [own];
  });
}

/** A resource as Bicep predicts it for given parameters: expressions that need Azure stay as strings. */
export interface PredictedResource {
  readonly id: string;
  readonly type: string;
  readonly name: string;
  readonly location?: string;
  readonly kind?: string;
  readonly sku?: Record<string, unknown>;
  readonly identity?: Record<string, unknown>;
  readonly properties?: Record<string, unknown>;
}

/** Output of `bicep snapshot`. */
export interface DeploymentSnapshot {
  readonly predictedResources: readonly PredictedResource[];
  readonly diagnostics: readonly unknown[];
  readonly outputs: Record<string, unknown>;
}

/** Fixed deployment context of the snapshots. */
export const SNAPSHOT_CONTEXT = Object.freeze({
  subscriptionId: '00000000-0000-0000-0000-0000000000a1',
  tenantId: '00000000-0000-0000-0000-0000000000b2',
  location: 'westeurope',
});

/** A parameter value as a `.bicepparam` file spells it. */
type ParamValue = string | number | boolean | readonly ParamValue[] | { readonly [key: string]: ParamValue };

/** `value` as a Bicep literal: strings single-quoted (quotes and backslashes escaped), arrays and objects one item a line. */
function bicepLiteral(value: ParamValue): string {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `[\n${value.map((v: ParamValue) => bicepLiteral(v)).join('\n')}\n]`;
  return `{\n${Object.entries(value)
    .map(([k, v]) => `${k}: ${bicepLiteral(v as ParamValue)}`)
    .join('\n')}\n}`;
}

/**
 * Evaluates `main.bicep` with the given parameters through `bicep snapshot` (the compiler's own evaluator),
 * so tests can assert concrete values instead of ARM expression strings.
 */
export function snapshotMainBicep(
  compiler: BicepCompiler,
  mainBicep: string,
  params: Record<string, ParamValue>,
): DeploymentSnapshot {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-infra-'));
  // `using` accepts only relative paths.
  const lines = [`using '${relative(dir, mainBicep).split('\\').join('/')}'`];
  for (const [name, value] of Object.entries(params)) lines.push(`param ${name} = ${bicepLiteral(value)}`);
  const paramFile = join(dir, 'test.bicepparam');
  writeFileSync(paramFile, `${lines.join('\n')}\n`);
  const ctx = SNAPSHOT_CONTEXT;
  try {
    const result = spawnSync(
      compiler.command,
      [
        'snapshot',
        paramFile,
        '--mode',
        'overwrite',
        '--subscription-id',
        ctx.subscriptionId,
        '--tenant-id',
        ctx.tenantId,
        '--location',
        ctx.location,
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    if (result.status !== 0) throw new Error(`bicep snapshot failed: ${result.stdout}${result.stderr}`);
    return JSON.parse(readFileSync(join(dir, 'test.snapshot.json'), 'utf8')) as DeploymentSnapshot;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The predicted resources of one type. */
export function ofType(snapshot: DeploymentSnapshot, type: string): PredictedResource[] {
  return snapshot.predictedResources.filter((r) => r.type.toLowerCase() === type.toLowerCase());
}

/** The only predicted resource of a type; throws when there is not exactly one. */
export function single(snapshot: DeploymentSnapshot, type: string): PredictedResource {
  const found = ofType(snapshot, type);
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  return found[0] as PredictedResource;
}
