#!/usr/bin/env node
// Launcher for `npx convoy`: registers tsx in this process and runs cli/main.ts, so a command costs one Node
// start-up, not two.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
