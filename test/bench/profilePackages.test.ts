import { describe, expect, it } from 'vitest';
import { packageOf, PartName, selfTimeByPackage, type CpuProfile } from '../../bench/support/profilePackages.js';

const ROOT = '/repo';

describe('a CPU profile grouped by package', () => {
  it.each([
    ['file:///repo/node_modules/rhea/lib/connection.js', 'rhea'],
    ['file:///repo/node_modules/@azure/service-bus/dist/esm/receiver.js', '@azure/service-bus'],
    ['file:///repo/node_modules/@azure/core-amqp/dist/esm/index.js', '@azure/core-*'],
    ['file:///repo/node_modules/@opentelemetry/sdk-trace-base/build/span.js', '@opentelemetry/*'],
    ['file:///repo/node_modules/pino/node_modules/sonic-boom/index.js', 'sonic-boom'],
    ['file:///repo/packages/local-host/src/servicebus/sessionTrigger.ts', '@ledger-convoy/local-host'],
    ['file:///repo/src/core/processor/decide.ts', PartName.App],
    ['file:///repo/bench/support/workload.ts', PartName.Bench],
    ['node:internal/streams/writable', PartName.NodeInternals],
    ['', PartName.Builtins],
    ['file:///elsewhere/x.js', PartName.Other],
  ])('%s belongs to %s', (url, expected) => {
    // Act
    const name = packageOf(url, 'f', ROOT);
    // Assess
    expect(name).toBe(expected);
  });

  it('names the garbage collector, the idle loop and native code by their V8 frames', () => {
    // Act
    const names = ['(garbage collector)', '(idle)', '(program)'].map((f) => packageOf('', f, ROOT));
    // Assess
    expect(names).toEqual([PartName.GarbageCollector, PartName.Idle, PartName.Program]);
  });

  it("sums each sample's interval onto its function's package, idle apart, busiest first", () => {
    // Prepare: samples at 0, 10, 30, 60 µs after the start; the profile ends at 100.
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: { functionName: '(idle)', url: '' } },
        { id: 2, callFrame: { functionName: 'send', url: 'file:///repo/node_modules/rhea/lib/link.js' } },
        { id: 3, callFrame: { functionName: 'decide', url: 'file:///repo/src/core/decide.ts' } },
      ],
      startTime: 1000,
      endTime: 1100,
      samples: [2, 3, 1, 2],
      timeDeltas: [0, 10, 20, 30],
    };
    // Act
    const times = selfTimeByPackage(profile, ROOT);
    // Assess: rhea 10 + 40 µs, the app 20 µs, idle 30 µs.
    expect(times.idleMs).toBeCloseTo(0.03);
    expect(times.busyMs).toBeCloseTo(0.07);
    expect(times.packages.map((p) => [p.name, Number(p.selfMs.toFixed(3)), Number(p.share.toFixed(3))])).toEqual([
      ['rhea', 0.05, 0.714],
      [PartName.App, 0.02, 0.286],
    ]);
  });

  it('counts only the samples inside a window, in ms from the profile start', () => {
    // Prepare: samples 1 ms apart from the start, the first two in the start-up.
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: { functionName: 'load', url: 'file:///repo/node_modules/tsx/dist/x.js' } },
        { id: 2, callFrame: { functionName: 'send', url: 'file:///repo/node_modules/rhea/lib/link.js' } },
      ],
      startTime: 0,
      endTime: 4000,
      samples: [1, 1, 2, 2],
      timeDeltas: [0, 1000, 1000, 1000],
    };
    // Act
    const times = selfTimeByPackage(profile, ROOT, { fromMs: 2, toMs: 10 });
    // Assess
    expect(times.packages.map((p) => [p.name, p.selfMs])).toEqual([['rhea', 2]]);
  });
});
