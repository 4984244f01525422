import type { ServerResponse } from 'node:http';
import type { Cookie, HttpResponse as HttpResponseType, HttpResponseInit } from '@azure/functions';
import { HttpResponse } from '../azureFunctions.js';

/**
 * Writes what an HTTP function returned (`HttpResponseInit`, `HttpResponse` or nothing) to the Node response,
 * through the library's own `HttpResponse` so `jsonBody`, default headers and null-body statuses behave as on
 * the real host.
 */
export async function writeFunctionResponse(result: unknown, res: ServerResponse, method: string): Promise<void> {
  const response = isHttpResponse(result) ? result : new HttpResponse((result ?? {}) as HttpResponseInit);
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie') headers[key] = value;
  });
  const cookies = [...response.headers.getSetCookie(), ...response.cookies.map(serializeCookie)];
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  headers['content-length'] = String(body.length);
  res.writeHead(response.status, headers);
  res.end(method === 'HEAD' ? undefined : body);
}

function isHttpResponse(value: unknown): value is HttpResponseType {
  return value instanceof HttpResponse;
}

function serializeCookie(cookie: Cookie): string {
  const parts = [`${cookie.name}=${encodeURIComponent(cookie.value)}`];
  if (cookie.domain) parts.push(`Domain=${cookie.domain}`);
  if (cookie.path) parts.push(`Path=${cookie.path}`);
  if (cookie.expires !== undefined) parts.push(`Expires=${new Date(cookie.expires).toUTCString()}`);
  if (cookie.maxAge !== undefined) parts.push(`Max-Age=${cookie.maxAge}`);
  if (cookie.secure) parts.push('Secure');
  if (cookie.httpOnly) parts.push('HttpOnly');
  if (cookie.sameSite) parts.push(`SameSite=${cookie.sameSite}`);
  return parts.join('; ');
}
