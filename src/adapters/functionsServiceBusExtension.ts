/**
 * The one place that loads `@azure/functions-extensions-servicebus`. Loading it registers the factory that turns
 * the host's `AzureServiceBusReceivedMessage` model-binding data into `{ messages, actions }` for triggers declared
 * with `sdkBinding: true`. Only the Functions host needs it, and the entry module loads it there
 * (`ensureServiceBusSdkBinding`); the in-process host hands handlers that shape
 * itself, so it never pays for the extension's gRPC client (a fifth of `npm start`'s main-thread time).
 */
import { createRequire } from 'node:module';
import { FunctionsAdapterError } from './functionsAdapterError.js';

/** The binding source the host sends and the extension registers its factory under. @internal */
export const serviceBusSdkBindingSource = 'AzureServiceBusReceivedMessage';

/** The part of `@azure/functions-extensions-base`'s resolver the adapters use. */
interface FunctionsResourceFactoryResolver {
  hasResourceFactory(resourceType: string): boolean;
  createClient(resourceType: string | null | undefined, modelBindingData: unknown): unknown;
}

interface ExtensionsBaseModule {
  ResourceFactoryResolver: { getInstance(): FunctionsResourceFactoryResolver };
}

const requireHere = createRequire(import.meta.url);

/**
 * The resolver of the `@azure/functions-extensions-base` copy that `@azure/functions` itself loads — the copy that
 * matters: two installed copies made the factory register in the wrong one (docs/platform.md, "Two copies of @azure/functions-extensions-base").
 * The extension is loaded first (once: `require` caches it), so its factory is registered.
 * @internal
 */
export function functionsResourceFactoryResolver(): FunctionsResourceFactoryResolver {
  // Loaded with require rather than `import`: the package's typings re-export its raw `.ts` sources, which a static
  // import would drag into our strict compilation (dozens of errors). It is CommonJS, so require is its native form.
  requireHere('@azure/functions-extensions-servicebus');
  const requireFromFunctions = createRequire(requireHere.resolve('@azure/functions'));
  const base = requireFromFunctions('@azure/functions-extensions-base') as ExtensionsBaseModule;
  return base.ResourceFactoryResolver.getInstance();
}

/**
 * Fails fast at registration time, instead of on the first message, when the SDK binding cannot work: the
 * factory is missing from the resolver `@azure/functions` uses.
 */
export function ensureServiceBusSdkBinding(): void {
  if (!functionsResourceFactoryResolver().hasResourceFactory(serviceBusSdkBindingSource)) {
    throw new FunctionsAdapterError(
      'ExtensionNotRegistered',
      `Factory for "${serviceBusSdkBindingSource}" is not registered in the @azure/functions-extensions-base copy ` +
        "used by @azure/functions; check the npm override that pins the extension's copy to the same version.",
    );
  }
}
