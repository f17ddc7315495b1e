/** Escapes text for HTML and SVG. */
export function esc(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

export interface Bar {
  label: string;
  /** 0 to `max`. */
  value: number;
  /** A CSS colour; default by value (green at the top, red at the bottom). */
  color?: string;
  /** Shown after the bar (default: the value as a percentage). */
  note?: string;
}

const LABEL_WIDTH = 220;
const BAR_WIDTH = 360;
const ROW = 24;

/** Green for full marks, amber in between, red for none. */
export function rateColor(rate: number): string {
  return rate >= 1 ? "#2e7d32" : rate > 0.5 ? "#f9a825" : "#c62828";
}

const pct = (value: number) => `${Math.round(value * 100)}%`;

function clip(text: string, max = 30): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A horizontal bar chart as inline SVG (one row per bar, labels left, values right). */
export function barChart(title: string, bars: readonly Bar[], max = 1): string {
  const height = Math.max(1, bars.length) * ROW + 8;
  const width = LABEL_WIDTH + BAR_WIDTH + 120;
  const rows = bars.map((bar, i) => {
    const y = i * ROW + 4;
    const w = max > 0 ? Math.max(1, (Math.min(bar.value, max) / max) * BAR_WIDTH) : 1;
    return [
      `<text x="${LABEL_WIDTH - 8}" y="${y + 15}" text-anchor="end" class="label"><title>${esc(bar.label)}</title>${esc(clip(bar.label))}</text>`,
      `<rect x="${LABEL_WIDTH}" y="${y + 2}" width="${BAR_WIDTH}" height="${ROW - 6}" class="track"/>`,
      `<rect x="${LABEL_WIDTH}" y="${y + 2}" width="${w.toFixed(1)}" height="${ROW - 6}" fill="${bar.color ?? rateColor(bar.value / (max || 1))}"/>`,
      `<text x="${LABEL_WIDTH + BAR_WIDTH + 8}" y="${y + 15}" class="value">${esc(bar.note ?? pct(bar.value))}</text>`,
    ].join("");
  });
  return `<figure><figcaption>${esc(title)}</figcaption><svg role="img" aria-label="${esc(title)}" viewBox="0 0 ${width} ${height}" width="100%" style="max-width:${width}px">${rows.join("")}</svg></figure>`;
}

/** A histogram of values as inline SVG: `bins` equal-width buckets from the minimum to the maximum. */
export function histogram(title: string, values: readonly number[], unit: string, bins = 10): string {
  const width = 520;
  const height = 180;
  const plot = { left: 40, bottom: 150, top: 10, width: 460 };
  if (values.length === 0)
    return `<figure><figcaption>${esc(title)}</figcaption><p class="muted">no values</p></figure>`;
  const min = Math.min(...values);
  const max = Math.max(...values);
  const step = max > min ? (max - min) / bins : 1;
  const counts = new Array<number>(bins).fill(0);
  for (const value of values) counts[Math.min(bins - 1, Math.floor((value - min) / step))]! += 1;
  const top = Math.max(...counts);
  const barWidth = plot.width / bins;
  const bars = counts.map((count, i) => {
    const h = (count / top) * (plot.bottom - plot.top);
    const x = plot.left + i * barWidth;
    const from = min + i * step;
    return `<rect x="${(x + 1).toFixed(1)}" y="${(plot.bottom - h).toFixed(1)}" width="${(barWidth - 2).toFixed(1)}" height="${h.toFixed(1)}" class="bin"><title>${count} run(s) from ${format(from)} to ${format(from + step)} ${esc(unit)}</title></rect>`;
  });
  const axis = [
    `<line x1="${plot.left}" y1="${plot.bottom}" x2="${plot.left + plot.width}" y2="${plot.bottom}" class="axis"/>`,
    `<text x="${plot.left}" y="${plot.bottom + 18}" class="tick">${format(min)}</text>`,
    `<text x="${plot.left + plot.width}" y="${plot.bottom + 18}" text-anchor="end" class="tick">${format(max)} ${esc(unit)}</text>`,
    `<text x="${plot.left - 6}" y="${plot.top + 10}" text-anchor="end" class="tick">${top}</text>`,
  ];
  return `<figure><figcaption>${esc(title)}</figcaption><svg role="img" aria-label="${esc(title)}" viewBox="0 0 ${width} ${height}" width="100%" style="max-width:${width}px">${axis.join("")}${bars.join("")}</svg></figure>`;
}

function format(value: number): string {
  if (value === 0) return "0";
  if (Math.abs(value) >= 100) return value.toFixed(0);
  return Number(value.toPrecision(3)).toString();
}
