import { badRequest, forbidden } from '../errors/errorFactory.js';
import { OperationAbort } from './scriptRun.js';

/** One named value of a request or response, and whether the script may change it. */
interface MessageValue {
  value: unknown;
  writable: boolean;
}

/** What the emulator reads back from a request or response after the script ran. */
export interface MessageMap {
  /** The object handed to the script: `getBody()`, `setBody(v)`, `appendBody(v)`, `getValue(name)`… */
  api: Record<string, (...args: unknown[]) => unknown>;
  /** The current value of a property (e.g. `Body`). */
  value(name: string): unknown;
}

/**
 * Builds the request or response object of the server-side API: for each property `X` a `getX()`, and for a
 * writable one `setX(v)` and `appendX(v)`, plus the generic `getValue(name)`, `setValue(name, v)` and
 * `appendValue(name, v)`. Appending concatenates onto a string and adds (`+`) onto anything else, so a
 * response body, which starts as an empty string, collects appended values as text.
 */
export function messageMap(properties: Record<string, MessageValue>): MessageMap {
  const entry = (name: string): MessageValue => {
    const found = properties[name];
    if (found === undefined) throw new OperationAbort(badRequest(`Cannot set new values: ${name}`));
    if (!found.writable) throw new OperationAbort(forbidden(`Not a writable property: ${name}`));
    return found;
  };
  const set = (name: unknown, value: unknown): void => {
    entry(String(name)).value = value;
  };
  const append = (name: unknown, value: unknown): void => {
    const target = entry(String(name));
    const current = target.value;
    if (typeof current === 'string') target.value = current + String(value);
    else target.value = current === null || current === undefined ? value : (current as number) + (value as number);
  };
  const api: Record<string, (...args: unknown[]) => unknown> = {
    getValue: (name) => properties[String(name)]?.value,
    setValue: set,
    appendValue: append,
  };
  for (const [name, property] of Object.entries(properties)) {
    api[`get${name}`] = () => property.value;
    if (property.writable) {
      api[`set${name}`] = (value) => set(name, value);
      api[`append${name}`] = (value) => append(name, value);
    }
  }
  return { api, value: (name) => properties[name]?.value };
}
