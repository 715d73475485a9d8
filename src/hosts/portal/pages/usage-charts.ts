import { LATENCY_BOUNDS_MS } from '../../../usage/usage-counters.js';
import type { LatencyPercentile, UsageOverview, UsagePeriod } from '../../../usage/usage-service.js';

/**
 * The home page's charts as plain shapes (rectangles, polylines and labels
 * in a viewBox of VIEW_WIDTH × VIEW_HEIGHT), drawn as SVG by
 * portal/views/partials/usage-chart.eta, which escapes every text: no chart
 * library, nothing that needs JavaScript. Each chart carries a sentence that
 * says what it shows (its figcaption, read by screen readers) and the window
 * a table of every period's numbers.
 */
export const VIEW_WIDTH = 320;
export const VIEW_HEIGHT = 150;
const PLOT = { left: 40, right: 8, top: 8, bottom: 22 } as const;
const PLOT_WIDTH = VIEW_WIDTH - PLOT.left - PLOT.right;
const PLOT_HEIGHT = VIEW_HEIGHT - PLOT.top - PLOT.bottom;

export interface ChartBar {
  x: number;
  y: number;
  width: number;
  height: number;
  /** The series (a CSS class: s-2xx, s-ok, …). */
  series: string;
}

export interface ChartLine {
  points: string;
  series: string;
  dots: { x: number; y: number }[];
}

export interface Chart {
  id: string;
  title: string;
  /** What the chart shows, in one or two sentences: its figcaption. */
  summary: string;
  bars: ChartBar[];
  lines: ChartLine[];
  xLabels: { x: number; text: string }[];
  yTicks: { y: number; text: string }[];
  legend: { series: string; text: string }[];
}

export interface UsageWindow {
  id: string;
  heading: string;
  /** How a period is named in the table's first column. */
  periodName: string;
  charts: Chart[];
  rows: UsageRow[];
}

/** One period's numbers as the table shows them. */
export interface UsageRow {
  period: string;
  requests: [string, number][];
  errorRate: string;
  p50: string;
  p95: string;
  succeeded: number;
  failed: number;
  retried: number;
}

const format = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });

/** The smallest of 1, 2, 5 × 10ⁿ at or above `value` (at least 1): the top of a count axis. */
function niceMax(value: number): number {
  if (value <= 1) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].map((step) => step * magnitude).find((top) => top >= value) ?? 10 * magnitude);
}

function percent(rate: number | null): string {
  return rate === null ? '–' : `${format.format(rate * 100)} %`;
}

function latency(p: LatencyPercentile | null): string {
  if (p === null) return '–';
  return p.over ? `over ${p.ms} ms` : `≤ ${p.ms} ms`;
}

/** A slot per period along the x axis: its left edge and width. */
function slot(index: number, count: number): { x: number; width: number } {
  const width = PLOT_WIDTH / count;
  return { x: PLOT.left + index * width, width };
}

const yOf = (value: number, top: number) => PLOT.top + PLOT_HEIGHT - (value / top) * PLOT_HEIGHT;

/** Ticks at 0, half way and the top; a count axis skips a half way that is not a whole number. */
function yTicks(top: number, text: (value: number) => string, whole = false): Chart['yTicks'] {
  return [0, top / 2, top].filter((value) => !whole || Number.isInteger(value)).map((value) => ({ y: yOf(value, top), text: text(value) }));
}

/** Stacked bars, one per period, a segment per series. */
function stacked(periods: readonly UsagePeriod[], series: readonly { series: string; value: (p: UsagePeriod) => number }[]): { bars: ChartBar[]; top: number } {
  const top = niceMax(Math.max(0, ...periods.map((p) => series.reduce((sum, s) => sum + s.value(p), 0))));
  const bars: ChartBar[] = [];
  periods.forEach((period, index) => {
    const { x, width } = slot(index, periods.length);
    let base = 0;
    for (const s of series) {
      const value = s.value(period);
      if (value === 0) continue;
      const y = yOf(base + value, top);
      bars.push({ x: x + width * 0.15, y, width: width * 0.7, height: yOf(base, top) - y, series: s.series });
      base += value;
    }
  });
  return { bars, top };
}

/** A line through the periods that have a value (a gap where one has none). */
function line(periods: readonly UsagePeriod[], value: (p: UsagePeriod) => number | null, top: number, series: string): ChartLine {
  const dots: { x: number; y: number }[] = [];
  periods.forEach((period, index) => {
    const v = value(period);
    if (v === null) return;
    const { x, width } = slot(index, periods.length);
    dots.push({ x: Math.round((x + width / 2) * 10) / 10, y: Math.round(yOf(Math.min(v, top), top) * 10) / 10 });
  });
  return { points: dots.map((d) => `${d.x},${d.y}`).join(' '), series, dots };
}

function xLabels(periods: readonly UsagePeriod[], label: (start: string) => string, every: number): Chart['xLabels'] {
  return periods.flatMap((period, index) => {
    if (index % every !== 0 && index !== periods.length - 1) return [];
    if (index !== periods.length - 1 && periods.length - 1 - index < every / 2) return [];
    const { x, width } = slot(index, periods.length);
    return [{ x: x + width / 2, text: label(period.start) }];
  });
}

const hourLabel = (start: string) => `${start.slice(11, 13)}:00`;
const dayLabel = (start: string) => new Date(start).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

function charts(id: string, periods: readonly UsagePeriod[], total: UsagePeriod, label: (start: string) => string, every: number): Chart[] {
  const labels = xLabels(periods, label, every);
  const requests = stacked(
    periods,
    (['2xx', '3xx', '4xx', '5xx'] as const).map((c) => ({ series: `s-${c}`, value: (p: UsagePeriod) => p.requests[c] })),
  );
  const errorTop = Math.min(1, niceMax(Math.max(0.01, ...periods.map((p) => p.errorRate ?? 0)) * 100) / 100);
  const latencyTop = niceMax(Math.max(1, ...periods.map((p) => p.p95?.ms ?? 0)));
  const deliveries = stacked(periods, [
    { series: 's-ok', value: (p) => p.deliveriesSucceeded },
    { series: 's-failed', value: (p) => p.deliveriesFailed },
  ]);
  const count = (n: number) => format.format(n);
  const r = total.requests;
  return [
    {
      id: `${id}-requests`,
      title: 'Requests by status',
      summary:
        total.total === 0
          ? 'No requests.'
          : `${count(total.total)} requests: ${count(r['2xx'])} 2xx, ${count(r['3xx'])} 3xx, ${count(r['4xx'])} 4xx, ${count(r['5xx'])} 5xx.`,
      bars: requests.bars,
      lines: [],
      xLabels: labels,
      yTicks: yTicks(requests.top, count, true),
      legend: (['2xx', '3xx', '4xx', '5xx'] as const).map((c) => ({ series: `s-${c}`, text: c })),
    },
    {
      id: `${id}-errors`,
      title: 'Error rate',
      summary: total.errorRate === null ? 'No requests.' : `Error rate ${percent(total.errorRate)}: ${count(r['4xx'] + r['5xx'])} of ${count(total.total)} requests answered 4xx or 5xx.`,
      bars: [],
      lines: [line(periods, (p) => p.errorRate, errorTop, 's-error')],
      xLabels: labels,
      yTicks: yTicks(errorTop, (v) => `${format.format(v * 100)}%`),
      legend: [{ series: 's-error', text: '4xx and 5xx' }],
    },
    {
      id: `${id}-latency`,
      title: 'Latency',
      summary: total.total === 0 ? 'No requests.' : `p50 ${latency(total.p50)}, p95 ${latency(total.p95)}.`,
      bars: [],
      lines: [line(periods, (p) => p.p50?.ms ?? null, latencyTop, 's-p50'), line(periods, (p) => p.p95?.ms ?? null, latencyTop, 's-p95')],
      xLabels: labels,
      yTicks: yTicks(latencyTop, (v) => `${format.format(v)} ms`),
      legend: [
        { series: 's-p50', text: 'p50' },
        { series: 's-p95', text: 'p95' },
      ],
    },
    {
      id: `${id}-deliveries`,
      title: 'Webhook deliveries',
      summary:
        `${count(total.deliveriesSucceeded)} succeeded, ${count(total.deliveriesFailed)} failed (given up after every retry); ` +
        `${count(total.deliveryAttemptsFailed)} failed attempts will be retried.`,
      bars: deliveries.bars,
      lines: [],
      xLabels: labels,
      yTicks: yTicks(deliveries.top, count, true),
      legend: [
        { series: 's-ok', text: 'succeeded' },
        { series: 's-failed', text: 'failed' },
      ],
    },
  ];
}

function row(period: UsagePeriod, name: string): UsageRow {
  return {
    period: name,
    requests: (['2xx', '3xx', '4xx', '5xx'] as const).map((c) => [c, period.requests[c]]),
    errorRate: percent(period.errorRate),
    p50: latency(period.p50),
    p95: latency(period.p95),
    succeeded: period.deliveriesSucceeded,
    failed: period.deliveriesFailed,
    retried: period.deliveryAttemptsFailed,
  };
}

/** The home page's two windows: the last 24 hours by hour, the last 14 days by day (UTC). */
export function usageWindows(overview: UsageOverview): UsageWindow[] {
  return [
    {
      id: 'usage-day',
      heading: 'Last 24 hours',
      periodName: 'Hour (UTC)',
      charts: charts('usage-day', overview.hours, overview.lastDay, hourLabel, 6),
      rows: overview.hours.map((p) => row(p, `${p.start.slice(0, 10)} ${hourLabel(p.start)}`)),
    },
    {
      id: 'usage-fortnight',
      heading: 'Last 14 days',
      periodName: 'Day (UTC)',
      charts: charts('usage-fortnight', overview.days, overview.lastFortnight, dayLabel, 4),
      rows: overview.days.map((p) => row(p, p.start.slice(0, 10))),
    },
  ];
}

/** How precise the latency figures are, said once under the charts. */
export const LATENCY_NOTE = `Latency percentiles are read from a histogram with bounds of ${LATENCY_BOUNDS_MS.join(', ')} ms: "≤ 13 ms" means at most 13 ms and more than the bound before.`;
