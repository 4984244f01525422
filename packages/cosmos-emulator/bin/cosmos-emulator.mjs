#!/usr/bin/env node
// The `cosmos-emulator` command: runs the emulator's TypeScript under plain Node, compiled as it loads (tsx).
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
