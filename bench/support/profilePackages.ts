/**
 * Self time of a V8 CPU profile (`node --cpu-prof`'s `.cpuprofile`) by package: which of the app, the local host, the
 * SDKs and their dependencies, Node's internals or the garbage collector the sampled thread spent its time in.
 */
import { fileURLToPath } from 'node:url';

/** The parts of a `.cpuprofile` this reads (Chrome DevTools protocol `Profiler.Profile`). */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  startTime: number;
  endTime: number;
  samples: number[];
  /** Microseconds from the previous sample (the first from `startTime`). */
  timeDeltas: number[];
}

/** One package's share of a profile. */
interface PackageTime {
  name: string;
  selfMs: number;
  /** Of the profile's busy time (idle left out). */
  share: number;
}

/** A profile's self time by package, busiest first. */
export interface PackageTimes {
  /** Sampled time not idle, in ms. */
  busyMs: number;
  idleMs: number;
  packages: PackageTime[];
}

/** Names for what is not a package. @internal */
export const PartName = {
  App: 'the app (src/)',
  Bench: 'the bench (bench/)',
  Tests: 'tests (test/)',
  NodeInternals: 'node internals (node:*)',
  Builtins: 'V8 builtins and native calls (JSON, RegExp, Buffer, …)',
  GarbageCollector: 'garbage collector',
  Program: '(program: native code outside JS)',
  Idle: '(idle)',
  Other: '(other)',
} as const;

/** Families read as one: every @azure/core-* package, every @opentelemetry/* package. */
const FAMILIES: readonly [RegExp, string][] = [
  [/^@azure\/core-/, '@azure/core-*'],
  [/^@azure\/abort-controller$/, '@azure/core-*'],
  [/^@opentelemetry\//, '@opentelemetry/*'],
];

/**
 * The package a script belongs to: the last `node_modules/<name>` in its path (scoped names kept whole), else a
 * workspace package (`packages/<dir>/` under `root`, named `@ledger-convoy/<dir>`), else the root's own folders.
 * @internal
 */
export function packageOf(url: string, functionName: string, root: string): string {
  if (url === '') {
    if (functionName === '(garbage collector)') return PartName.GarbageCollector;
    if (functionName === '(idle)') return PartName.Idle;
    if (functionName === '(program)') return PartName.Program;
    return PartName.Builtins;
  }
  if (url.startsWith('node:') || !url.includes('/')) return PartName.NodeInternals;
  const path = url.startsWith('file:') ? fileURLToPath(url) : url;
  const modules = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  if (modules) return family(modules[1] as string);
  const base = root.endsWith('/') ? root : `${root}/`;
  if (!path.startsWith(base)) return PartName.Other;
  const [top, next] = path.slice(base.length).split('/');
  if (top === 'packages' && next !== undefined) return `@ledger-convoy/${next}`;
  if (top === 'src') return PartName.App;
  if (top === 'bench') return PartName.Bench;
  if (top === 'test') return PartName.Tests;
  return PartName.Other;
}

/** Part of a profile, in ms from its start. */
export interface ProfileWindow {
  fromMs: number;
  toMs: number;
}

/**
 * Sums each sample's interval onto the package of the function it landed in; within `window` only, when given (to
 * leave the start-up out).
 */
export function selfTimeByPackage(profile: CpuProfile, root: string, window?: ProfileWindow): PackageTimes {
  const packageOfNode = new Map(
    profile.nodes.map((n) => [n.id, packageOf(n.callFrame.url, n.callFrame.functionName, root)]),
  );
  const byPackage = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    // A sample's interval is the delta that follows it (the last one takes the profile's end).
    const micros = profile.timeDeltas[i + 1] ?? Math.max(0, profile.endTime - at);
    const sinceStartMs = (at - profile.startTime) / 1000;
    if (window && (sinceStartMs < window.fromMs || sinceStartMs >= window.toMs)) return;
    const name = packageOfNode.get(id) ?? PartName.Other;
    byPackage.set(name, (byPackage.get(name) ?? 0) + micros / 1000);
  });
  const idleMs = byPackage.get(PartName.Idle) ?? 0;
  byPackage.delete(PartName.Idle);
  const busyMs = [...byPackage.values()].reduce((a, b) => a + b, 0);
  const packages = [...byPackage]
    .map(([name, selfMs]) => ({ name, selfMs, share: busyMs === 0 ? 0 : selfMs / busyMs }))
    .sort((a, b) => b.selfMs - a.selfMs);
  return { busyMs, idleMs, packages };
}

function family(name: string): string {
  return FAMILIES.find(([pattern]) => pattern.test(name))?.[1] ?? name;
}
