import { readFile } from 'node:fs/promises';

/** App settings as functions read them from the environment. */
export type AppSettings = Readonly<Record<string, string | undefined>>;

/**
 * Reads `Values` of a local.settings.json; an absent file yields no values (the environment may hold them all).
 * @throws Error when the file exists but is not valid JSON with string values.
 */
export async function readLocalSettings(path: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const parsed = JSON.parse(text) as { Values?: unknown };
  const values = parsed.Values ?? {};
  if (typeof values !== 'object' || values === null) throw new Error(`${path}: "Values" must be an object`);
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value === null || typeof value === 'object') throw new Error(`${path}: Values.${key} must be a string`);
    result[key] = String(value);
  }
  return result;
}

/**
 * Merges settings as `func start` does: local.settings.json values, with the environment winning, then the
 * host's own overrides (the embedded emulators' connections), which win over both. Identity-based variants of an
 * overridden connection (`<name>__*`) are dropped so a function cannot pick the wrong one.
 */
export function mergeSettings(
  fileValues: Readonly<Record<string, string>>,
  env: NodeJS.ProcessEnv,
  overrides: Readonly<Record<string, string>> = {},
): AppSettings {
  const merged: Record<string, string | undefined> = { ...fileValues };
  for (const [key, value] of Object.entries(env)) if (value !== undefined) merged[key] = value;
  for (const name of Object.keys(overrides)) {
    for (const key of Object.keys(merged)) if (key.startsWith(`${name}__`)) delete merged[key];
  }
  return Object.freeze({ ...merged, ...overrides });
}

/**
 * Puts settings into `process.env`, where functions read them on Azure, and returns a function that restores the
 * previous environment (for in-process tests that start and stop the host).
 */
export function applyToProcessEnv(settings: AppSettings): () => void {
  const previous = new Map<string, string | undefined>();
  for (const [key, value] of Object.entries(settings)) {
    if (value === undefined || process.env[key] === value) continue;
    previous.set(key, process.env[key]);
    process.env[key] = value;
  }
  const removed = Object.keys(process.env).filter((key) => !(key in settings));
  const removedValues = new Map(removed.map((key) => [key, process.env[key]]));
  for (const key of removed) delete process.env[key];
  return () => {
    for (const [key, value] of [...previous, ...removedValues]) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}
