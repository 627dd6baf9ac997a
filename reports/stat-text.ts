// A sweep's statistics in words, once, for the report's table and the viewer's sweep page (its API sends these
// strings), so both say the same: the success rate and its intervals with which runs they count, the rate had every
// error been a failure, identical repeats, and the cost (unknown when a run's model has no price).
import { formatCost, formatInterval, formatNumber, formatRate } from './stat-format.ts';
import type { StatsRow } from './report-data.ts';

/** A cell's settings that reach its agent, as key=value; '' when the sweep varies none. */
export const settingsText = (settings: unknown): string =>
  Object.entries((settings ?? {}) as Record<string, unknown>)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Which runs a rate counts: "over 4 independent runs; 1 error and 0 running left out". */
const countedText = (r: { n_independent: unknown; errors?: unknown; running?: unknown }): string =>
  `over ${plural(Number(r.n_independent), 'independent run')}; ${plural(Number(r.errors ?? 0), 'error')} and ` +
  `${Number(r.running ?? 0)} running left out`;

/** "4 of 5 repeats identical": model runs that walked the same path as another repeat of their cell; '' if none. */
const identicalText = (identical: unknown, of: unknown) =>
  Number(identical) > 0 ? `${Number(identical)} of ${Number(of)} repeats identical` : '';

/**
 * A grid cell's interval and what it counts (the viewer's sweep page), from viewer/queries/sweep-view.ts cellStats:
 * counted as sweep_stats counts a group, plus the copies left out and the cells they copy.
 */
export function cellText(c: {
  n_independent: number;
  successes_independent: number;
  success_low95: number | null;
  success_high95: number | null;
  copies: number;
  copy_of_cells: number[];
  counted: number;
  errors: number;
  running: number;
  identical_repeats: number;
}): { interval: string; counted: string } {
  const of = c.copy_of_cells.length > 0 ? `of cell ${c.copy_of_cells.join(', ')} ` : '';
  const copies = c.copies === 0 ? '' : `; ${c.copies === 1 ? '1 copy' : `${c.copies} copies`} ${of}counted once`;
  const identical = identicalText(c.identical_repeats, c.counted);
  return {
    interval: formatInterval(c.success_low95, c.success_high95),
    counted: `${countedText(c)}${copies}${identical ? `; ${identical}` : ''}`,
  };
}

export interface StatsRowText {
  settings: string;
  /** The success rate and its Wilson 95% interval: "75.0% (30.1% - 95.4%)". */
  success: string;
  /** The maze-clustered bootstrap 95% interval of the same rate. */
  successBootstrap: string;
  /** Which runs they count: "over 4 independent runs; 1 error and 0 running left out". */
  counted: string;
  /** "4 of 5 repeats identical" (model runs that walked the same path as another repeat of their cell), or ''. */
  identical: string;
  /** The same rate had every error been a failure, or '' when there was no error. */
  ifErrorsFailed: string;
  /** Each error's reason with its count: "ProviderTransientError x2". */
  errorReasons: string;
  /** Mean efficiency over the independent successes, with its clustered bootstrap interval. */
  efficiency: string;
  /** The share of a model's tool calls recovered from its reply text (lenient parsing); '-' for baselines. */
  fromText: string;
  /** What every run of the group cost, errors included: "unknown" when any run's model has no price. */
  cost: string;
}

/** A group of reports/sweep-statistics.ts in words. */
export function statsRowText(r: StatsRow): StatsRowText {
  const bootstrap = (b: { low: number | null; high: number | null }) =>
    b.low === null ? '-' : formatInterval(b.low, b.high);
  return {
    settings: settingsText(r.settings),
    success:
      r.success.rate === null
        ? '-'
        : `${formatRate(r.success.rate)} (${formatInterval(r.success.wilson.low, r.success.wilson.high)})`,
    successBootstrap: bootstrap(r.success.bootstrap),
    counted: countedText({ n_independent: r.independent, errors: r.errors, running: r.running }),
    identical: identicalText(r.identicalRepeats, r.modelRuns),
    ifErrorsFailed:
      r.errors === 0
        ? ''
        : `${formatRate(r.ifErrorsFailed.rate)} ` +
          `(${formatInterval(r.ifErrorsFailed.wilson.low, r.ifErrorsFailed.wilson.high)})`,
    errorReasons: r.errorReasons.map((e) => (e.runs > 1 ? `${e.reason} x${e.runs}` : e.reason)).join('; '),
    efficiency:
      r.efficiency.mean === null
        ? '-'
        : `${formatNumber(r.efficiency.mean, 3)} (${
            r.efficiency.bootstrap.low === null
              ? '-'
              : `${formatNumber(r.efficiency.bootstrap.low, 3)} - ${formatNumber(r.efficiency.bootstrap.high, 3)}`
          })`,
    fromText: r.fromTextRate === null ? '-' : formatRate(r.fromTextRate),
    cost: formatCost(r.costUsd),
  };
}
