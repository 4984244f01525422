import type { Timer } from '@azure/functions';
import type { Logger } from 'pino';
import { createInvocationContext } from '../logging/invocationContext.js';
import { inInvocation } from '../logging/logOutput.js';
import type { RegistrationOf } from '../registrations.js';
import { parseNcrontab } from './ncrontab.js';

/** Options of {@link startTimerHost}. */
interface TimerHostOptions {
  functions: readonly RegistrationOf<'timer'>[];
  logger: Logger;
}

/** Running timer triggers. */
export interface TimerHost {
  /** Cancels future occurrences and resolves once running invocations have returned. */
  close(): Promise<void>;
}

// The host flags an occurrence as past due when it starts this much later than scheduled.
const PAST_DUE_MS = 1000;

/**
 * Runs timer functions in-process on their NCRONTAB schedules (UTC). Like the host's singleton timer, an
 * occurrence never overlaps the previous invocation: the next one is computed when the current one returns.
 * `runOnStartup` is honoured; schedule state is not persisted (`useMonitor` has nothing to monitor here), which is
 * why the in-process host needs no storage account.
 */
export function startTimerHost(options: TimerHostOptions): TimerHost {
  const { logger } = options;
  const timeouts = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<void>>();
  let closed = false;

  for (const registration of options.functions) {
    const schedule = parseNcrontab(registration.options.schedule);
    let last: Date | undefined;

    const invoke = async (scheduled: Date): Promise<void> => {
      const startedAt = new Date();
      const next = schedule.next(startedAt);
      const timer: Timer = {
        isPastDue: startedAt.getTime() - scheduled.getTime() > PAST_DUE_MS,
        schedule: { adjustForDST: true },
        scheduleStatus: {
          last: (last ?? startedAt).toISOString(),
          next: next.toISOString(),
          lastUpdated: startedAt.toISOString(),
        },
      };
      last = startedAt;
      const context = createInvocationContext(logger, { functionName: registration.name });
      try {
        await inInvocation({ function: registration.name, invocationId: context.invocationId }, () =>
          registration.options.handler(timer, context),
        );
      } catch (error) {
        context.error('timer function threw', error);
      }
    };

    const track = (scheduled: Date): void => {
      const run = invoke(scheduled).finally(() => {
        running.delete(run);
        scheduleNext();
      });
      running.add(run);
    };

    const scheduleNext = (): void => {
      if (closed) return;
      const due = schedule.next(new Date());
      const handle = setTimeout(
        () => {
          timeouts.delete(handle);
          if (!closed) track(due);
        },
        Math.max(0, due.getTime() - Date.now()),
      );
      timeouts.add(handle);
    };

    if (registration.options.runOnStartup) track(new Date());
    else scheduleNext();
    logger.debug({ function: registration.name, schedule: registration.options.schedule }, 'timer scheduled');
  }

  return {
    async close() {
      closed = true;
      for (const handle of timeouts) clearTimeout(handle);
      timeouts.clear();
      await Promise.all([...running]);
    },
  };
}
