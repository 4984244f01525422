import { performance } from 'node:perf_hooks';

/** One finished part of the start, in ms since the process started. */
interface StartupMark {
  phase: string;
  atMs: number;
}

/** Where the start's time went: `npm start` logs it once ready, and `npm run bench:startup` prints it. */
export interface StartupTimeline {
  mark(phase: string): void;
  marks(): readonly StartupMark[];
}

/**
 * A timeline counted from the process's start (`performance.timeOrigin`), so module loading is in it; `earlier` are
 * marks made before it existed (the launcher's).
 */
export function startupTimeline(earlier: readonly StartupMark[] = []): StartupTimeline {
  const marks: StartupMark[] = [...earlier];
  return {
    mark: (phase) => void marks.push({ phase, atMs: Math.round(performance.now()) }),
    marks: () => marks,
  };
}
