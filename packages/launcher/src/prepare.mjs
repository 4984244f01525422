#!/usr/bin/env node
// The install's `prepare` step (`npm ci`, `npm install`): builds every bundle of the launcher, so the first
// `npm start` and `npx convoy` after an install find them current instead of building them (the packages' vendor
// bundle takes a few seconds). A build that fails does not fail the install: the next run builds again and says why.
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';
import { INPUTS, PARTS } from './parts.mjs';
import { prepareBundles } from './prepareBundles.mjs';

const root = fileURLToPath(new URL('../../..', import.meta.url));
try {
  const { buildMs, prune } = await prepareBundles({ root, parts: PARTS, inputs: INPUTS });
  prune?.();
  if (buildMs !== undefined)
    process.stdout.write(`npm start's and npx convoy's bundles built in ${(buildMs / 1000).toFixed(1)} s (.start/)\n`);
} catch (error) {
  process.stderr.write(
    `npm start's bundles were not built now (${error instanceof Error ? error.message : String(error)}); npm start builds them.\n`,
  );
}
