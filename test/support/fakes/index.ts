/** Test doubles of the core's ports, for unit tests and local runs without Cosmos DB. */
export { InMemoryHoldStore } from './inMemoryHoldStore.js';
export { InMemoryOrderStore, type InjectedFault } from './inMemoryOrderStore.js';
export { ManualClock, RecordingSettlement, RecordingTelemetry, type SettlementCall } from './recorders.js';
