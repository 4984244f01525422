// The launcher's entry point: what `npm start` (packages/local-host) and `npx convoy` (packages/cli) call.
export { enableCompileCache } from './compileCache.mjs';
export { INPUTS, PARTS } from './parts.mjs';
export { prepareBundles } from './prepareBundles.mjs';
export { mapStackTraces } from './stackTraces.mjs';
