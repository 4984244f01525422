// Worker threads do not inherit the caller's TypeScript loader (vitest's, or tsx's): register tsx here, then load
// the TypeScript entry point of the Service Bus triggers' thread.
import { register } from 'tsx/esm/api';

register();
await import('./triggerWorker.ts');
