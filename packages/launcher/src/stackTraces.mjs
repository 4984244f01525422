// Stack traces of `npm start` name the TypeScript sources: frames in our bundles are mapped through their linked
// source maps, each read the first time a trace needs it. Node's own source map support (`--enable-source-maps`)
// parses the map of every module as it loads, the packages' in node_modules included: a twentieth of a start.
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';

/** Maps the frames of files under `dir` (this thread's traces) through their `.map` files. */
export function mapStackTraces(dir) {
  const prefix = pathToFileURL(dir).href;
  const maps = new Map();
  const mapOf = (url) => {
    if (!maps.has(url)) {
      let map;
      try {
        map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')));
      } catch {
        map = undefined;
      }
      maps.set(url, map);
    }
    return maps.get(url);
  };
  const frame = (site) => {
    const text = site.toString();
    // A module's URL (how Node names an ES module's file), or a plain path.
    const file = site.getFileName();
    const url = file?.startsWith('/') ? pathToFileURL(file).href : file;
    if (!url?.startsWith(prefix)) return text;
    const line = site.getLineNumber();
    const column = site.getColumnNumber();
    const entry = mapOf(url)?.findEntry(line - 1, column - 1);
    if (!entry?.originalSource) return text;
    const source = fileURLToPath(new URL(entry.originalSource, url));
    return text.replace(`${file}:${line}:${column}`, `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`);
  };
  Error.prepareStackTrace = (error, sites) => {
    let head;
    try {
      head = Error.prototype.toString.call(error);
    } catch {
      head = '<error>';
    }
    return [head, ...sites.map((site) => `    at ${frame(site)}`)].join('\n');
  };
}
