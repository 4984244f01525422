/**
 * Self time by package of CPU profiles (`npm run bench:cpu-profile -- --dir <dir> [--top 15]`): one table per
 * `.cpuprofile` in the directory, as `node --cpu-prof --cpu-prof-dir <dir>` writes them (one per thread: the main
 * thread's and each worker's). How docs/benchmarks.md's profile was taken is written there.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { table } from '@ledger-convoy/cli';
import { benchArgs, wholeArg } from './support/benchArgs.js';
import { selfTimeByPackage, type CpuProfile } from './support/profilePackages.js';

const USAGE = [
  'Usage: npm run bench:cpu-profile -- --dir <dir> [--top N]',
  '  --dir <dir>   a directory of .cpuprofile files (node --cpu-prof --cpu-prof-dir <dir>)',
  '  --top N       packages listed per profile (default 15; the rest summed)',
  '  --root <dir>  the repository the profiled process ran from (default: this one)',
].join('\n');
const values = benchArgs(USAGE, {
  dir: { type: 'string' },
  top: { type: 'string', default: '15' },
  root: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
});
const window =
  values.from === undefined && values.to === undefined
    ? undefined
    : {
        fromMs: 1000 * (values.from === undefined ? 0 : wholeArg(USAGE, values.from, 0, 'from')),
        toMs: 1000 * (values.to === undefined ? Number.MAX_SAFE_INTEGER / 1000 : wholeArg(USAGE, values.to, 1, 'to')),
      };
const top = wholeArg(USAGE, values.top, 1, 'top');
if (values.dir === undefined) {
  process.stderr.write(`--dir is required\n\n${USAGE}\n`);
  process.exit(2);
}
const dir = values.dir;
const root = values.root ?? fileURLToPath(new URL('..', import.meta.url));
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .sort();
if (files.length === 0) {
  process.stderr.write(`no .cpuprofile in ${dir}\n`);
  process.exit(1);
}
for (const file of files) {
  const times = selfTimeByPackage(JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile, root, window);
  const shown = times.packages.slice(0, top);
  const rest = times.packages.slice(top).reduce((ms, p) => ms + p.selfMs, 0);
  const span = window ? ` (from ${window.fromMs / 1000} s${values.to === undefined ? '' : ` to ${values.to} s`})` : '';
  console.log(`${file}${span}: ${(times.busyMs / 1000).toFixed(1)} s busy, ${(times.idleMs / 1000).toFixed(1)} s idle`);
  console.log(
    table(
      ['package', 'self ms', 'share of busy'],
      [
        ...shown.map((p) => [p.name, p.selfMs.toFixed(0), `${(100 * p.share).toFixed(1)} %`]),
        ...(rest > 0 ? [['(the rest)', rest.toFixed(0), `${((100 * rest) / times.busyMs).toFixed(1)} %`]] : []),
      ],
    ),
  );
  console.log('');
}
