#!/usr/bin/env node
// `npx convoy`: runs src/main.ts from its bundle, built with esbuild by npm start's launcher (packages/launcher)
// whenever it could be stale, and importing the npm packages from the vendor bundle npm start uses too: a few files
// to load, not the TypeScript and the ~2,000 files of the packages one by one.
import { dirname, join } from 'node:path';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';
import { enableCompileCache, INPUTS, PARTS, prepareBundles, mapStackTraces } from '@ledger-convoy/launcher';

const root = fileURLToPath(new URL('../../..', import.meta.url));
enableCompileCache(root);
const { dirs, prune } = await prepareBundles({ root, parts: PARTS, only: ['cli'], inputs: INPUTS });
mapStackTraces(dirname(dirs.cli));
// The command runs to its end inside this import (src/main.ts awaits it).
await import(pathToFileURL(join(dirs.cli, 'convoy.js')).href);
prune?.();
