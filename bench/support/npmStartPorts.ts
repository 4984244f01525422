/**
 * Ports of a bench's own `npm start` — never the defaults, which other stacks on this machine may hold: six in a row
 * from a random base, as `npm start`'s flags.
 */
export function npmStartPorts(): { base: number; args: string[] } {
  const base = 20_000 + Math.floor(Math.random() * 9_000);
  const flags = [
    '--port',
    '--servicebus-port',
    '--cosmos-port',
    '--servicebus-admin-port',
    '--servicebus-admin-https-port',
    '--console-port',
  ];
  return { base, args: flags.flatMap((flag, i) => [flag, String(base + i)]) };
}
