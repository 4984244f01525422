#!/usr/bin/env node
// Launcher for `npx convoy`: runs cli/main.ts through tsx with the same arguments, streams and exit code.
import { spawn } from 'node:child_process';
import { URL, fileURLToPath } from 'node:url';
import process from 'node:process';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));
// Resolved from here, not from the working directory, so `convoy` works from any folder.
const tsx = import.meta.resolve('tsx');
const child = spawn(process.execPath, ['--import', tsx, main, ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
