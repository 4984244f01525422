// Worker threads do not inherit the caller's TypeScript loader (vitest's, or tsx's under npm start): register
// tsx here, then load the TypeScript entry point.
import { register } from 'tsx/esm/api';

register();
await import('./emulatorWorker.ts');
