/*
 * One function host of the chaos run, as its own process (so it can be killed with SIGKILL): the in-process host
 * without emulators, the app's functions with the host faults of `hostFaults.ts`, settings from the environment.
 * Prints `{"chaos":"ready","httpUrl":…}` on stdout.
 */
import { startLocalHost } from '@ledger-convoy/local-host';
import { loadApp } from '@ledger-convoy/local-host';
import { createHostLogger } from '@ledger-convoy/local-host';
import { emitHostEvent, hostFaultSettingsFrom, withHostFaults } from './hostFaults.js';

const env = process.env;
const int = (name: string): number | undefined => (env[name] === undefined ? undefined : Number(env[name]));
const logger = createHostLogger({ level: env.LOG_LEVEL || 'warn' });
const registrations = withHostFaults((await loadApp()).functions, hostFaultSettingsFrom(env));

const host = await startLocalHost({
  emulators: false,
  httpPort: 0,
  quiet: true,
  logger,
  // Settings come from the environment only.
  settingsFile: '/nonexistent/local.settings.json',
  registrations,
  serviceBus: {
    ...(int('CHAOS_MAX_SESSIONS') !== undefined && { maxConcurrentSessions: int('CHAOS_MAX_SESSIONS') }),
    ...(int('CHAOS_SESSION_IDLE_MS') !== undefined && { sessionIdleTimeoutMs: int('CHAOS_SESSION_IDLE_MS') }),
    ...(int('CHAOS_LOCK_RENEWAL_MS') !== undefined && { maxAutoLockRenewalDurationMs: int('CHAOS_LOCK_RENEWAL_MS') }),
  },
});
emitHostEvent({ chaos: 'ready', httpUrl: host.httpUrl });

// The run stops its hosts with SIGTERM once it has checked everything: no draining needed.
process.once('SIGTERM', () => process.exit(0));
// A run that died without stopping its hosts must not leave them consuming: the parent changes when it goes.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 1_000).unref();
