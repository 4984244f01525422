/**
 * The one test of "on this machine" (the embedded or official emulators, a console bound to loopback): `localhost`,
 * `::1` and 127.0.0.0/8, with or without brackets and a port (`127.0.0.1:5672`, `[::1]:8081`).
 */
export function isLoopbackHost(host: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(host);
  const name = bracketed ? bracketed[1]! : host.split(':').length === 2 ? host.replace(/:\d+$/, '') : host;
  return name === 'localhost' || name === '::1' || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** True for a URL whose host is on this machine; false for anything that does not parse. */
export function isLoopbackEndpoint(endpoint: string): boolean {
  try {
    return isLoopbackHost(new URL(endpoint).hostname);
  } catch {
    return false;
  }
}
