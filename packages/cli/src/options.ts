import { InvalidArgumentError } from 'commander';

/** commander parser for a whole number ≥ `min`. */
export function wholeNumber(min = 0): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min)
      throw new InvalidArgumentError(`expected a whole number ≥ ${min}.`);
    return n;
  };
}

/** commander parser for a ratio in [0, 1]. */
export function ratio(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !(n >= 0 && n <= 1))
    throw new InvalidArgumentError('expected a ratio between 0 and 1, e.g. 0.1.');
  return n;
}

/** commander parser collecting a repeatable option into a list. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
