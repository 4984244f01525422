import type { Throughput } from './offers.js';

/**
 * The RU/s the service gives each physical partition of a new container: 6,000 with manual throughput, 10,000
 * with autoscale (its maximum), as "Best practices for scaling provisioned throughput" in the Azure Cosmos DB
 * documentation states the initial layout.
 */
const MANUAL_RU_PER_PARTITION = 6_000;
const AUTOSCALE_RU_PER_PARTITION = 10_000;

/**
 * The physical partitions the service gives a container created with the throughput a request asks for, at
 * least one. The SDKs' bulk executes per partition and so expects that many.
 */
export function partitionsForThroughput(throughput: Throughput | undefined): number {
  if (throughput === undefined) return 1;
  const partitions =
    'manual' in throughput
      ? throughput.manual / MANUAL_RU_PER_PARTITION
      : throughput.autoscaleMax / AUTOSCALE_RU_PER_PARTITION;
  return Math.min(256, Math.max(1, Math.ceil(partitions)));
}
