import { html } from 'hono/html';
import type { SamplePoint } from '../sampler.js';
import type { Html } from './layout.js';

const WIDTH = 600;
const HEIGHT = 120;

/**
 * A line chart of one series over the last `windowMs`, as inline SVG (no script, no library): the x axis is time
 * ending now, the y axis starts at 0 and ends at the series' maximum, labelled. Gaps (failed reads) break the line.
 */
export function lineChart(id: string, title: string, unit: string, points: readonly SamplePoint[], value: (p: SamplePoint) => number | undefined, windowMs: number, now = Date.now()): Html {
  const values = points.map(value).filter((v): v is number => v !== undefined);
  const max = Math.max(1, ...values);
  const start = now - windowMs;
  const segments: string[][] = [[]];
  for (const p of points) {
    const v = value(p);
    if (v === undefined) {
      segments.push([]);
      continue;
    }
    const x = ((p.at - start) / windowMs) * WIDTH;
    const y = HEIGHT - (v / max) * HEIGHT;
    segments[segments.length - 1]!.push(`${x.toFixed(1)},${y.toFixed(1)}`);
  }
  const last = values.at(-1);
  const paths = segments.filter((s) => s.length > 0).map((s) => (s.length === 1 ? `M${s[0]}h1` : `M${s.join('L')}`));
  return html`<figure class="chart" id="${id}">
<figcaption>${title}: <strong>${last === undefined ? '–' : format(last)}</strong> ${unit} now, max ${format(max)} · last 15 min</figcaption>
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-label="${title}, last 15 minutes" data-points="${values.length}">
<line x1="0" y1="${HEIGHT}" x2="${WIDTH}" y2="${HEIGHT}" class="axis"/>
${paths.map((d) => html`<path d="${d}" class="line" vector-effect="non-scaling-stroke"/>`)}
</svg>
</figure>`;
}

function format(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
