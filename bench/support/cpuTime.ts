/**
 * CPU time of the bench's process: of its main thread (the app's thread: the functions, the in-process host, the SDK
 * clients and the bench's own sends; the emulators run in worker threads beside it) and of the whole process.
 * Event-loop utilisation is not CPU: a loop busy waiting on a page fault or preempted by another process counts as
 * busy, and the emulators' threads never show in it.
 */
import { readFileSync } from 'node:fs';

/** CPU milliseconds (user + system) at one instant. */
export interface CpuReading {
  /** Of the main thread; undefined where neither Node nor the platform tells it. */
  mainMs: number | undefined;
  /** Of every thread of the process. */
  processMs: number;
}

/** CPU milliseconds spent between two readings. */
export interface CpuSpent {
  mainMs: number | undefined;
  processMs: number;
}

/** Node 22.19 and later count the calling thread's CPU; older ones do not have it. */
type ThreadCpuUsage = () => NodeJS.CpuUsage;

/** Where the main thread's CPU is read from: Node's own count, else Linux's per-thread stat file. */
export function readCpu(): CpuReading {
  const processUsage = process.cpuUsage();
  return { mainMs: mainThreadMs(), processMs: (processUsage.user + processUsage.system) / 1000 };
}

/** CPU spent from `before` to now. */
export function cpuSince(before: CpuReading): CpuSpent {
  const now = readCpu();
  return {
    mainMs: now.mainMs === undefined || before.mainMs === undefined ? undefined : now.mainMs - before.mainMs,
    processMs: now.processMs - before.processMs,
  };
}

/** This must run on the main thread (the bench calls it there); in a worker it would read the worker's CPU. */
function mainThreadMs(): number | undefined {
  const threadCpuUsage = (process as { threadCpuUsage?: ThreadCpuUsage }).threadCpuUsage;
  if (typeof threadCpuUsage === 'function') {
    const usage = threadCpuUsage.call(process);
    return (usage.user + usage.system) / 1000;
  }
  return linuxThreadMs(process.pid);
}

/**
 * utime + stime of thread `tid` of this process from /proc (the main thread's id is the process id), in ms; fields
 * 14 and 15 of proc(5)'s stat, counted after the parenthesised command name, which may hold spaces.
 */
function linuxThreadMs(tid: number): number | undefined {
  const stat = readProc(`/proc/${process.pid}/task/${tid}/stat`);
  if (stat === '') return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS_PER_SECOND : undefined;
}

/** USER_HZ: 100 on every Linux architecture Node runs on (sysconf(_SC_CLK_TCK), which Node does not expose). */
const CLOCK_TICKS_PER_SECOND = 100;

function readProc(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
