// `@azure/functions` is a CommonJS bundle: under native ESM only `app`, `trigger` and `output` resolve as named
// imports, so the classes come off the default export.
import functions from '@azure/functions';

/** The library's own `HttpRequest`, `HttpResponse`, `InvocationContext`, `AppStartContext` and `AppTerminateContext` classes, usable from ESM. */
export const { HttpRequest, HttpResponse, InvocationContext, AppStartContext, AppTerminateContext } = functions;
