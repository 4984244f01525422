// Where `npm start`'s bundles live (`.start/`) and how a start knows one is current. Each bundle records every file
// esbuild read for it, with the directory of each (a file added beside them can change what an import resolves to),
// as size and modification time; a bundle is current only while all of them still match. `current.json` names the
// current bundle of each kind and is replaced by an atomic rename, so concurrent starts never read half of it.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import process from 'node:process';

/** The shape of a record in `current.json`; a record of another shape is rebuilt. */
const RECORD_FORMAT = 2;
/** Earlier bundles of each kind kept besides the current one. */
const KEPT_BUILDS = 3;

/** The build cache of the repository at `root`. */
export function buildCache(root) {
  const cacheDir = join(root, '.start');
  const currentFile = join(cacheDir, 'current.json');
  const base = root.replace(/\/$/, '');

  /** Size and modification time, or null when the path is gone. */
  const fingerprint = (path) => {
    try {
      const s = statSync(`${base}/${path}`);
      return [s.size, s.mtimeMs];
    } catch {
      return null;
    }
  };

  return {
    cacheDir,
    /** Absolute path of a bundle's directory. */
    path: (dir) => join(cacheDir, dir),
    /** A fresh directory name for a bundle of `kind` (its time first: the newest are kept). */
    newDir: (kind) => `${kind}-${Date.now()}-${process.pid}-${Math.random().toString(16).slice(2, 8).padEnd(6, '0')}`,
    /** The bundles `current.json` names, by kind (empty when there is none). */
    read() {
      try {
        return JSON.parse(readFileSync(currentFile, 'utf8'));
      } catch {
        return {};
      }
    },
    /** Whether a recorded bundle can run: its directory is there and nothing it was built from changed. */
    isFresh(record) {
      if (record?.format !== RECORD_FORMAT || !existsSync(join(cacheDir, record.dir))) return false;
      // Inputs by directory: `.` is the directory itself, every other key a file in it.
      for (const [dir, files] of Object.entries(record.inputs)) {
        for (const [name, print] of Object.entries(files)) {
          const now = fingerprint(name === '.' ? dir : `${dir}/${name}`);
          if (now === null || print === null ? now !== print : now[0] !== print[0] || now[1] !== print[1]) return false;
        }
      }
      return true;
    },
    /** A record of the bundle in `dir` built from `files` (relative to the root): their fingerprints and their directories'. */
    record(dir, files, details = {}) {
      return { format: RECORD_FORMAT, dir, ...details, inputs: this.fingerprints(files) };
    },
    /**
     * The fingerprints of `files` and of the directory of each; not of directories in node_modules, whose content
     * changes only through npm, which rewrites `node_modules/.package-lock.json` whatever it does.
     */
    fingerprints(files) {
      const inputs = {};
      for (const file of files) {
        const dir = relative(root, dirname(join(root, file))) || '.';
        inputs[dir] ??= dir.startsWith('node_modules/') ? {} : { '.': fingerprint(dir) };
        inputs[dir][basename(file)] = fingerprint(file);
      }
      return inputs;
    },
    /** Makes `records` (by kind) current, keeping the other kinds' records as they are now. */
    update(records) {
      mkdirSync(cacheDir, { recursive: true });
      const temporary = `${currentFile}.${process.pid}`;
      writeFileSync(temporary, JSON.stringify({ ...this.read(), ...records }));
      renameSync(temporary, currentFile);
    },
    /**
     * Removes earlier bundles, but not the current ones nor the last few of each kind: a start still running one
     * loads some of its chunks later (the console, the shutdown), so they must outlive a rebuild by another start.
     * The single bundles of earlier launchers (`build-…`) are pruned alike.
     */
    prune() {
      const records = Object.values(this.read());
      const current = new Set(records.map((record) => record.dir));
      const byKind = new Map();
      for (const dir of readdirSync(cacheDir)) {
        const match = /^([a-z]+)-(\d+)-\d+(?:-[0-9a-f]+)?$/.exec(dir);
        if (!match || current.has(dir)) continue;
        byKind.set(match[1], [...(byKind.get(match[1]) ?? []), { dir, at: Number(match[2]) }]);
      }
      for (const dirs of byKind.values()) {
        for (const { dir } of dirs.sort((a, b) => b.at - a.at).slice(KEPT_BUILDS))
          rmSync(join(cacheDir, dir), { recursive: true, force: true });
      }
    },
  };
}
