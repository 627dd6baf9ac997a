// A sweep's statistics in words, once, for the report's table, the viewer's sweep page (its API sends these
// strings) and `ariadne stats`, so all say the same: the success rate and its intervals with which runs they count,
// the rate had every error been a failure, identical repeats, and the cost (unknown when a run's model has no
// price); a grid cell's interval; a paired comparison's identical repeats.
import { formatCost, formatInterval, formatNumber, formatRate } from './stat-format.ts';
import type { StatsRow } from './report-data.ts';
import type { CellStatistics } from './sweep-statistics.ts';
import type { Comparison } from './compare.ts';
import { stopReasonsText } from '../results/stop-reasons.ts';
import { plural } from './words.ts';

/** A cell's settings that reach its agent, as key=value; '' when the sweep varies none. */
export const settingsText = (settings: unknown): string =>
  Object.entries((settings ?? {}) as Record<string, unknown>)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');

/** Which runs a rate counts: "over 4 independent runs; 1 error and 0 running left out". */
const countedText = (r: {
  n_independent: unknown;
  errors?: unknown;
  running?: unknown;
  wallClock?: number;
  cached?: number;
}): string =>
  `over ${plural(Number(r.n_independent), 'independent run')}; ${plural(Number(r.errors ?? 0), 'error')}` +
  `${r.wallClock ? `, ${plural(r.wallClock, 'wall-clock stop')}` : ''}` +
  `${r.cached ? `, ${plural(r.cached, 'run')} answered from the cache` : ''} and ${Number(r.running ?? 0)} running ` +
  'left out';

/** "4 of 5 repeats identical": model runs that walked the same path as another repeat of their cell; '' if none. */
const identicalText = (identical: number, of: number) =>
  identical > 0 ? `${identical} of ${of} repeats identical` : '';

/**
 * A grid cell's interval and what it counts (the viewer's sweep page), from reports/sweep-statistics.ts's cells:
 * counted by the rules a statistics row is counted by, plus the copies left out and the cells they copy.
 */
export function cellText(c: CellStatistics): { interval: string; counted: string } {
  const of = c.copyOfCells.length > 0 ? `of cell ${c.copyOfCells.join(', ')} ` : '';
  const copies = c.copies === 0 ? '' : `; ${c.copies === 1 ? '1 copy' : `${c.copies} copies`} ${of}counted once`;
  const identical = identicalText(c.identicalRepeats, c.modelRuns);
  const counted = countedText({ n_independent: c.independent, errors: c.errors, running: c.running, cached: c.cached });
  return {
    interval: formatInterval(c.success.wilson.low, c.success.wilson.high),
    counted: `${counted}${copies}${identical ? `; ${identical}` : ''}`,
  };
}

/**
 * A paired comparison's identical model repeats per side, for one table of it: "qwen: 2 of 4 repeats identical";
 * '' when neither side has any (the CLI's compare, the viewer's pair views).
 */
export function pairIdenticalText(c: Pick<Comparison, 'a' | 'b'>, g: Comparison['groups'][number]): string {
  const i = g.identicalRepeats;
  return [
    [c.a, identicalText(i.a, i.ofA)],
    [c.b, identicalText(i.b, i.ofB)],
  ]
    .filter(([, t]) => t !== '')
    .map(([side, t]) => `${side}: ${t}`)
    .join('; ');
}

export interface StatsRowText {
  settings: string;
  /** The success rate and its maze-level 95% interval with its mazes: "75.0% (30.1% - 95.4%, 4 mazes)". */
  success: string;
  /** The maze-clustered bootstrap 95% interval of the same rate, or "too few mazes". */
  successBootstrap: string;
  /** Wilson's interval as if every run were independent (too narrow when repeats share a maze). */
  successRunsWilson: string;
  /** Which runs they count: "over 4 independent runs; 1 error and 0 running left out". */
  counted: string;
  /** "4 of 5 repeats identical" (model runs that walked the same path as another repeat of their cell), or ''. */
  identical: string;
  /** The same rate had every error (of any attempt) and wall-clock stop been a failure, or '' when there was none. */
  ifErrorsFailed: string;
  /** How the runs ended: "goal 4, move limit 2, wall clock 1". */
  stopReasons: string;
  /** Success weighted by path length with its maze-level interval. */
  spl: string;
  /** The reason of each attempt that ended in error (retried or not) with its count: "ProviderTransientError x2". */
  errorReasons: string;
  /** Mean efficiency over the independent successes only, with its maze-level interval. */
  efficiency: string;
  /** The share of a model's tool calls recovered from its reply text (lenient parsing); '-' for baselines. */
  fromText: string;
  /** Median actions of the independent successes; '-' with none. */
  medianActionsToSuccess: string;
  /** Invalid actions / actions over the observations. */
  invalidActionRate: string;
  /** The share of observations that entered some cell 10 or more times. */
  loopRate: string;
  /** Tokens of the observations / independent successes; '-' with none. */
  tokensPerSuccess: string;
  /** Cost of the observations / independent successes: "unknown" when any has no price, '-' with no success. */
  costPerSuccess: string;
  /** What every run of the group cost, errors included: "unknown" when any run's model has no price. */
  cost: string;
}

/** A mean's interval to three decimals, "0.412 - 0.655"; '-' where there is none. */
export const numberInterval = (i: { low: number | null; high: number | null }): string =>
  i.low === null || i.high === null ? '-' : `${formatNumber(i.low, 3)} - ${formatNumber(i.high, 3)}`;

/** "30.1% - 95.4%, 4 mazes", or "too few mazes (1)" where no maze-level interval can be had. */
const mazeIntervalText = (i: { low: number | null; high: number | null; mazes: number }): string =>
  i.low === null ? `too few mazes (${i.mazes})` : `${formatInterval(i.low, i.high)}, ${plural(i.mazes, 'maze')}`;

/** A group of reports/sweep-statistics.ts in words. */
export function statsRowText(r: StatsRow): StatsRowText {
  const sensitivity = r.ifErrorsFailed;
  return {
    settings: settingsText(r.settings),
    success: r.success.rate === null ? '-' : `${formatRate(r.success.rate)} (${mazeIntervalText(r.success.maze)})`,
    successBootstrap:
      r.success.bootstrapStatus === 'too few mazes'
        ? `too few mazes (${r.mazes})`
        : r.success.bootstrap.low === null
          ? '-'
          : formatInterval(r.success.bootstrap.low, r.success.bootstrap.high),
    successRunsWilson:
      r.success.wilson.low === null ? '-' : formatInterval(r.success.wilson.low, r.success.wilson.high),
    counted: countedText({
      n_independent: r.independent,
      errors: r.errors,
      running: r.running,
      wallClock: r.wallClock,
      cached: r.cached,
    }),
    identical: identicalText(r.identicalRepeats, r.modelRuns),
    ifErrorsFailed:
      r.erroredAttempts + r.wallClock === 0
        ? ''
        : `${formatRate(sensitivity.rate)} (${mazeIntervalText(sensitivity.maze)})`,
    stopReasons: stopReasonsText(r.stopReasons),
    spl: r.spl.mean === null ? '-' : `${formatNumber(r.spl.mean, 3)} (${numberInterval(r.spl.interval)})`,
    errorReasons: r.attemptErrorReasons
      .map((e) => (e.attempts > 1 ? `${e.reason} x${e.attempts}` : e.reason))
      .join('; '),
    efficiency:
      r.efficiency.mean === null
        ? '-'
        : `${formatNumber(r.efficiency.mean, 3)} (${numberInterval(r.efficiency.interval)})`,
    fromText: r.fromTextRate === null ? '-' : formatRate(r.fromTextRate),
    medianActionsToSuccess: formatNumber(r.medianActionsToSuccess, 1),
    invalidActionRate: formatRate(r.invalidActionRate),
    loopRate: formatRate(r.loopRate),
    tokensPerSuccess: formatNumber(r.tokensPerSuccess, 1),
    costPerSuccess: r.independentSuccesses === 0 ? '-' : formatCost(r.costPerSuccess),
    cost: formatCost(r.costUsd),
  };
}
