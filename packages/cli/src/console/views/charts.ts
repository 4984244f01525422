import { html } from 'hono/html';
import type { SamplePoint } from '../sampler.js';
import type { Html } from './layout.js';

const WIDTH = 640;
const HEIGHT = 160;
/** The plot's box inside the SVG: room on the left for the value labels, below for the time labels. */
const PLOT = { left: 48, right: WIDTH - 8, top: 8, bottom: HEIGHT - 22 };

/**
 * A line chart of one series over the last `windowMs`, as inline SVG (no script, no library): a time axis ending now
 * with a tick every 5 minutes (or every fifth of a shorter window), and a value scale from 0 to a round maximum
 * with its halfway line, both labelled. Gaps (failed reads) break the line.
 */
export function lineChart(
  id: string,
  title: string,
  unit: string,
  points: readonly SamplePoint[],
  value: (p: SamplePoint) => number | undefined,
  windowMs: number,
  now = Date.now(),
): Html {
  const values = points.map(value).filter((v): v is number => v !== undefined);
  const max = niceMax(Math.max(0, ...values));
  const start = now - windowMs;
  const x = (at: number) => PLOT.left + ((at - start) / windowMs) * (PLOT.right - PLOT.left);
  const y = (v: number) => PLOT.bottom - (v / max) * (PLOT.bottom - PLOT.top);
  const segments: string[][] = [[]];
  for (const p of points) {
    const v = value(p);
    if (v === undefined) {
      segments.push([]);
      continue;
    }
    segments[segments.length - 1]!.push(`${x(p.at).toFixed(1)},${y(v).toFixed(1)}`);
  }
  const paths = segments.filter((s) => s.length > 0).map((s) => (s.length === 1 ? `M${s[0]}h1` : `M${s.join('L')}`));
  const stepMs = windowMs >= 10 * 60_000 ? 5 * 60_000 : windowMs / 5;
  const timeTicks: { at: number; label: string }[] = [];
  for (let back = 0; back <= windowMs + 1; back += stepMs)
    timeTicks.push({ at: now - back, label: back === 0 ? 'now' : `−${formatDuration(back)}` });
  const valueTicks = [0, max / 2, max];
  const last = values.at(-1);
  return html`<figure class="chart" id="${id}">
<figcaption>${title}: <strong>${last === undefined ? '–' : format(last)}</strong> ${unit} now · last ${formatDuration(windowMs)}</figcaption>
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${title} (${unit}), last ${formatDuration(windowMs)}" data-points="${values.length}" data-max="${max}">
${valueTicks.map((v) => html`<line x1="${PLOT.left}" y1="${y(v)}" x2="${PLOT.right}" y2="${y(v)}" class="${v === 0 ? 'axis' : 'grid'}"/><text x="${PLOT.left - 6}" y="${y(v) + 4}" text-anchor="end" class="tick value-tick">${format(v)}</text>`)}
${timeTicks.map((t) => html`<line x1="${x(t.at)}" y1="${PLOT.bottom}" x2="${x(t.at)}" y2="${PLOT.bottom + 4}" class="axis"/><text x="${x(t.at)}" y="${HEIGHT - 6}" text-anchor="${t.label === 'now' ? 'end' : 'middle'}" class="tick time-tick">${t.label}</text>`)}
${paths.map((d) => html`<path d="${d}" class="line"/>`)}
</svg>
</figure>`;
}

/** The scale's top: the maximum rounded up to 1, 2 or 5 times a power of ten (1 for an empty or all-zero series). */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].find((m) => m * power >= value) ?? 10) * power;
}

function formatDuration(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}

function format(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
