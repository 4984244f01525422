import { processIo } from './io.js';
import { runCli } from './program.js';

// Entry point of `npx convoy` / `npm run convoy --`.
const code = await runCli(process.argv.slice(2), processIo());
process.exitCode = code;
