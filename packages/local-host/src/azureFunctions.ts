// `@azure/functions` is a CommonJS bundle: under native ESM only `app`, `trigger` and `output` resolve as named
// imports, so the classes come off the default export.
import functions from '@azure/functions';

/** The library's own `HttpRequest`, `HttpResponse` and `InvocationContext` classes, usable from ESM. */
export const { HttpRequest, HttpResponse, InvocationContext } = functions;
