import { Presets, SingleBar } from 'cli-progress';

/** A progress indicator; the silent one does nothing. */
export interface Progress {
  start(total: number, label: string): void;
  update(value: number, total?: number): void;
  stop(): void;
}

/** Options of {@link createProgress}. */
export interface ProgressOptions {
  /** No bar at all. @default false */
  quiet?: boolean;
  /** Where the bar draws; it only draws on a terminal. @default process.stderr */
  stream?: NodeJS.WriteStream;
}

/** A cli-progress bar on a terminal (stderr, so stdout stays parseable), nothing otherwise or when quiet. */
export function createProgress(options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr;
  if (options.quiet || !stream.isTTY) return silentProgress;
  const bar = new SingleBar(
    {
      format: '{label} [{bar}] {value}/{total} {duration_formatted}',
      stream,
      hideCursor: true,
      clearOnComplete: false,
    },
    Presets.shades_classic,
  );
  let started = false;
  return {
    start(total, label) {
      bar.start(total, 0, { label });
      started = true;
    },
    update(value, total) {
      if (!started) return;
      if (total !== undefined) bar.setTotal(total);
      bar.update(value);
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}

/** The progress that shows nothing. */
export const silentProgress: Progress = { start() {}, update() {}, stop() {} };
