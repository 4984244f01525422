/**
 * `npm run infra:build`: compiles `infra/main.bicep` to ARM JSON and lints it, failing on any warning.
 *
 * The compiler is found in this order: `bicep` on PATH, `az bicep`, or — when the .NET SDK is present — the
 * self-contained binary of the NuGet package `Azure.Bicep.CommandLine.<rid>`, restored once into `.tools/bicep`.
 * With none of these the script prints `SKIP: …` and exits 0 on a developer machine; under `CI` it fails, so a CI
 * run never goes green without compiling the infrastructure.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, chmodSync, constants, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** How a compiler is invoked: `bicep build …` directly, or `az bicep build --file …`. */
export type BicepCompilerKind = 'bicep' | 'az' | 'nuget';

/** A working Bicep compiler. */
export interface BicepCompiler {
  /** Where it came from. */
  readonly kind: BicepCompilerKind;
  /** Executable to run. */
  readonly command: string;
  /** Version line the compiler printed. */
  readonly version: string;
}

/** Options of {@link findBicepCompiler}. */
export interface FindBicepCompilerOptions {
  /** Repository root; `.tools/bicep` lives under it. @default the parent of this script's directory */
  readonly rootDir?: string;
  /** NuGet package version restored when only `dotnet` is available. @default '0.49.2' */
  readonly nugetVersion?: string;
  /** Where progress lines go. @default console.error */
  readonly log?: (line: string) => void;
}

/** One compiler diagnostic, e.g. `main.bicep(3,7) : Warning no-unused-params: …`. */
export interface BicepDiagnostic {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly level: 'Error' | 'Warning' | 'Info';
  readonly code: string;
  readonly message: string;
}

/** Result of {@link compileAndLint}. */
export interface InfraBuildResult {
  /** Absolute path of the ARM template written. */
  readonly outFile: string;
  /** Diagnostics of `build` and `lint` together (duplicates removed). */
  readonly diagnostics: readonly BicepDiagnostic[];
}

const DEFAULT_NUGET_VERSION = '0.49.2';
const scriptDir = dirname(fileURLToPath(import.meta.url));
const defaultRoot = resolve(scriptDir, '..');

interface RunResult {
  readonly ok: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[], timeoutMs: number, cwd?: string): RunResult {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return {
    ok: result.status === 0 && !result.error,
    stdout: result.stdout ?? '',
    stderr: result.stderr ?? String(result.error ?? ''),
  };
}

/** The NuGet runtime id and binary name of the Bicep CLI package for this machine, if one is published. */
export function bicepPackageRid(
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): { rid: string; binary: string } | undefined {
  const os = platform === 'linux' ? 'linux' : platform === 'darwin' ? 'osx' : platform === 'win32' ? 'win' : undefined;
  const cpu = arch === 'x64' ? 'x64' : arch === 'arm64' ? 'arm64' : undefined;
  if (!os || !cpu) return undefined;
  return { rid: `${os}-${cpu}`, binary: os === 'win' ? 'bicep.exe' : 'bicep' };
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Thrown when `dotnet restore` of the Bicep package fails (so CI can fail instead of skipping). */
export class BicepRestoreError extends Error {
  override readonly name = 'BicepRestoreError';
}

function restoreFromNuGet(rootDir: string, version: string, log: (line: string) => void): BicepCompiler | undefined {
  const target = bicepPackageRid();
  if (!target) return undefined;
  const packageId = `Azure.Bicep.CommandLine.${target.rid}`;
  const toolsDir = join(rootDir, '.tools', 'bicep');
  // NuGet lowercases package folders.
  const binary = join(toolsDir, 'packages', packageId.toLowerCase(), version, 'tools', target.binary);

  if (!existsSync(binary)) {
    const dotnet = run('dotnet', ['--version'], 30_000);
    if (!dotnet.ok) return undefined;
    const major = dotnet.stdout.trim().split('.')[0];
    // Restore into a private staging folder, then move the package into place: two processes restoring at
    // once (parallel test files) never see a half-extracted package.
    const staging = join(toolsDir, `staging-${process.pid}`);
    mkdirSync(staging, { recursive: true });
    // A throwaway project whose only purpose is to make NuGet download the package (PackageDownload: no reference).
    const project = join(staging, 'restore.csproj');
    writeFileSync(
      project,
      [
        '<Project Sdk="Microsoft.NET.Sdk">',
        `  <PropertyGroup><TargetFramework>net${major}.0</TargetFramework></PropertyGroup>`,
        `  <ItemGroup><PackageDownload Include="${packageId}" Version="[${version}]" /></ItemGroup>`,
        '</Project>',
        '',
      ].join('\n'),
    );
    log(`Restoring ${packageId} ${version} into ${toolsDir} …`);
    try {
      const restore = run('dotnet', ['restore', project, '--packages', join(staging, 'packages')], 600_000);
      const restored = join(staging, 'packages', packageId.toLowerCase(), version);
      if (!restore.ok || !existsSync(restored)) {
        throw new BicepRestoreError(
          `dotnet restore of ${packageId} ${version} failed:\n${restore.stdout}${restore.stderr}`,
        );
      }
      mkdirSync(dirname(dirname(dirname(binary))), { recursive: true });
      try {
        renameSync(restored, dirname(dirname(binary)));
      } catch (error) {
        // Another process moved its copy first: use that one.
        if (!existsSync(binary)) throw error;
      }
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  // NuGet extraction does not always keep the execute bit.
  if (!isExecutable(binary)) chmodSync(binary, 0o755);
  const probe = run(binary, ['--version'], 60_000);
  return probe.ok ? { kind: 'nuget', command: binary, version: probe.stdout.trim() } : undefined;
}

/**
 * Finds a working Bicep compiler, restoring the NuGet package when only `dotnet` is available.
 * The restored binary is cached in `.tools/bicep`, so later calls return at once.
 * @returns the compiler, or `undefined` when none is available.
 * @throws {@link BicepRestoreError} when `dotnet` is present but the restore fails.
 */
export function findBicepCompiler(options: FindBicepCompilerOptions = {}): BicepCompiler | undefined {
  const rootDir = options.rootDir ?? defaultRoot;
  const log = options.log ?? ((line: string) => console.error(line));

  const onPath = run('bicep', ['--version'], 30_000);
  if (onPath.ok) return { kind: 'bicep', command: 'bicep', version: onPath.stdout.trim() };

  // `az bicep` may try to download Bicep when it has none: the timeout keeps an offline machine from hanging.
  const az = run('az', ['bicep', 'version', '--only-show-errors'], 60_000);
  if (az.ok && /Bicep CLI version/i.test(az.stdout)) return { kind: 'az', command: 'az', version: az.stdout.trim() };

  return restoreFromNuGet(rootDir, options.nugetVersion ?? DEFAULT_NUGET_VERSION, log);
}

const diagnosticPattern = /^(.*?)\((\d+),(\d+)\) : (Error|Warning|Info) ([^:]+): (.*)$/;

/** Parses compiler output into diagnostics; lines that are not diagnostics are ignored. */
export function parseBicepDiagnostics(output: string): BicepDiagnostic[] {
  const diagnostics: BicepDiagnostic[] = [];
  for (const line of output.split(/\r?\n/)) {
    const match = diagnosticPattern.exec(line.trim());
    if (!match) continue;
    const [, file = '', lineNo = '0', column = '0', level, code = '', message = ''] = match;
    diagnostics.push({
      file,
      line: Number(lineNo),
      column: Number(column),
      level: level as BicepDiagnostic['level'],
      code: code.trim(),
      message,
    });
  }
  return diagnostics;
}

function commandArgs(compiler: BicepCompiler, verb: 'build' | 'lint', input: string, outFile?: string): string[] {
  const args = compiler.kind === 'az' ? ['bicep', verb, '--file', input] : [verb, input];
  if (outFile) args.push('--outfile', outFile);
  return args;
}

/**
 * Runs `bicep build` then `bicep lint` on `input`.
 * @throws Error when the build fails (the diagnostics are in the message).
 */
export function compileAndLint(compiler: BicepCompiler, input: string, outFile: string): InfraBuildResult {
  mkdirSync(dirname(outFile), { recursive: true });
  const build = run(compiler.command, commandArgs(compiler, 'build', input, outFile), 300_000);
  if (!build.ok) throw new Error(`bicep build failed:\n${build.stdout}${build.stderr}`);
  const lint = run(compiler.command, commandArgs(compiler, 'lint', input), 300_000);
  const seen = new Set<string>();
  const diagnostics = parseBicepDiagnostics(`${build.stdout}\n${build.stderr}\n${lint.stdout}\n${lint.stderr}`).filter(
    (d) => {
      const key = `${d.file}:${d.line}:${d.column}:${d.code}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    },
  );
  if (!lint.ok && !diagnostics.some((d) => d.level === 'Error')) {
    throw new Error(`bicep lint failed:\n${lint.stdout}${lint.stderr}`);
  }
  return { outFile: resolve(outFile), diagnostics };
}

function main(): number {
  const input = join(defaultRoot, 'infra', 'main.bicep');
  const outFile = join(defaultRoot, 'dist', 'infra', 'main.json');
  let compiler: BicepCompiler | undefined;
  try {
    compiler = findBicepCompiler();
  } catch (error) {
    if (!(error instanceof BicepRestoreError) || process.env.CI) throw error;
    console.error(error.message);
  }
  if (!compiler && process.env.CI) {
    console.error(
      'FAIL: CI is set but no Bicep compiler was found (bicep on PATH, az bicep, or dotnet to restore Azure.Bicep.CommandLine) — install the .NET SDK or Bicep.',
    );
    return 1;
  }
  if (!compiler) {
    console.log(
      'SKIP: no Bicep compiler (bicep on PATH, az bicep, or dotnet to restore Azure.Bicep.CommandLine) — infra/main.bicep was not compiled or linted.',
    );
    return 0;
  }
  console.log(`Using ${compiler.version} (${compiler.kind}: ${compiler.command})`);
  const result = compileAndLint(compiler, input, outFile);
  for (const d of result.diagnostics)
    console.log(`${d.file}(${d.line},${d.column}) : ${d.level} ${d.code}: ${d.message}`);
  const blocking = result.diagnostics.filter((d) => d.level !== 'Info');
  if (blocking.length > 0) {
    console.error(`FAIL: ${blocking.length} Bicep warning(s)/error(s); zero are allowed.`);
    return 1;
  }
  console.log(`OK: ${result.outFile} (lint: 0 warnings)`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main();
}
