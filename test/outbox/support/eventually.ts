/** Runs `step` until `done` says so, or fails after `timeoutMs` (a hang guard: it ends as soon as `done` holds). */
export async function eventually(
  step: () => Promise<void>,
  done: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  pauseMs = 40,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    await step();
    if (await done()) return;
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

/** Sets environment variables and returns a function that puts the previous values back. */
export function setEnv(values: Record<string, string>): () => void {
  const previous = Object.keys(values).map((key) => [key, process.env[key]] as const);
  Object.assign(process.env, values);
  return () => {
    for (const [key, value] of previous) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}
