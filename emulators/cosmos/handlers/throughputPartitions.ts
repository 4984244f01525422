import type { Throughput } from './offers.js';

/** Throughput one physical partition of the service serves, in RU/s. */
const RU_PER_PARTITION = 10_000;

/**
 * The physical partitions the service gives a container created with the throughput a request asks for
 * (manual, or the autoscale maximum): one per 10,000 RU/s, at least one. The SDKs' bulk executes per partition
 * and so expects that many.
 */
export function partitionsForThroughput(throughput: Throughput | undefined): number {
  if (throughput === undefined) return 1;
  const ru = 'manual' in throughput ? throughput.manual : throughput.autoscaleMax;
  return Math.min(256, Math.max(1, Math.ceil(ru / RU_PER_PARTITION)));
}
