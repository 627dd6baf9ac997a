// `ariadne stats <sweep>`: reports/sweep-statistics.ts as a table, grouped by the factors the sweep varies (or those
// --by names), from the same store as every results command (--aws included). What each column counts is said
// under the table.
import { sweepSuite } from '../../../results/run-state.ts';
import { findSuite, type ReferenceStats } from '../../../lambdas/maze/suites.ts';
import { Option, type Command } from 'commander';
import { withExample } from '../help.ts';
import { intOption } from '../options.ts';
import { hiddenNote, renderTable, wrapText, type Column, type TableLayout } from '../table.ts';
import { addTableOutputOptions, outputFormat, printTableOutput, type TableOutputOptions } from '../table-output.ts';
import { requireSweep } from './results.ts';
import { addResultsSourceOptions, withResultsDatabase, type ResultsSource } from '../results-database.ts';
import { checkFactors } from '../../../reports/factors.ts';
import { factorRow } from '../../../reports/factor-stats.ts';
import { sweepStatistics, type GroupStatistics, type SweepStatistics } from '../../../reports/sweep-statistics.ts';
import { formatCost, formatInterval, formatNumber, formatRate } from '../../../reports/stat-format.ts';
import { paperTable, provenanceNotes } from '../../../reports/paper-table.ts';

// The statistics as columns; a table too wide for the terminal drops the highest `drop` first, keeping the factors,
// n, the success rate and its Wilson interval (--wide shows them all).
const MEASURES: Array<Column<GroupStatistics>> = (
  [
    { header: 'runs', cell: (g) => g.runs, drop: 6 },
    { header: 'n', cell: (g) => g.n },
    { header: 'errors', cell: (g) => g.errors, drop: 2 },
    { header: 'running', cell: (g) => g.running, drop: 9 },
    { header: 'independent', cell: (g) => g.independent, drop: 7 },
    {
      header: 'identical',
      cell: (g) => (g.modelRuns === 0 ? '-' : `${g.identicalRepeats} of ${g.modelRuns}`),
      drop: 12,
    },
    { header: 'success', cell: (g) => formatRate(g.success.rate) },
    { header: 'wilson95', cell: (g) => formatInterval(g.success.wilson.low, g.success.wilson.high) },
    {
      header: 'maze_bootstrap95',
      cell: (g) => formatInterval(g.success.bootstrap.low, g.success.bootstrap.high),
      drop: 3,
    },
    {
      header: 'if_errors_failed',
      cell: (g) => {
        const { rate, wilson } = g.ifErrorsFailed;
        return g.errors === 0 ? '-' : `${formatRate(rate)} (${formatInterval(wilson.low, wilson.high)})`;
      },
      drop: 10,
    },
    { header: 'efficiency', cell: (g) => formatNumber(g.efficiency.mean, 3), drop: 4 },
    {
      header: 'efficiency_bootstrap95',
      cell: (g) =>
        g.efficiency.bootstrap.low === null
          ? '-'
          : `${formatNumber(g.efficiency.bootstrap.low, 3)} - ${formatNumber(g.efficiency.bootstrap.high, 3)}`,
      drop: 11,
    },
    { header: 'actions', cell: (g) => formatNumber(g.meanActions, 1), drop: 8 },
    { header: 'tokens', cell: (g) => formatNumber(g.tokensPerExperiment, 1), drop: 13 },
    { header: 'cost', cell: (g) => formatCost(g.costUsd), drop: 5 },
    { header: 'from_text', cell: (g) => (g.fromTextRate === null ? '-' : formatRate(g.fromTextRate)), drop: 14 },
  ] satisfies Array<Column<GroupStatistics>>
).map((c): Column<GroupStatistics> => ({ ...c, align: 'right' }));

/** Every column of the table as full values, intervals as their two bounds: one flat record per group (csv). */
function csvRecord(g: GroupStatistics): Record<string, unknown> {
  return {
    ...g.factors,
    runs: g.runs,
    n: g.n,
    successes: g.successes,
    errors: g.errors,
    running: g.running,
    independent: g.independent,
    identical_repeats: g.identicalRepeats,
    model_runs: g.modelRuns,
    success_rate: g.success.rate,
    wilson95_low: g.success.wilson.low,
    wilson95_high: g.success.wilson.high,
    maze_bootstrap95_low: g.success.bootstrap.low,
    maze_bootstrap95_high: g.success.bootstrap.high,
    if_errors_failed_rate: g.ifErrorsFailed.rate,
    if_errors_failed_low: g.ifErrorsFailed.wilson.low,
    if_errors_failed_high: g.ifErrorsFailed.wilson.high,
    efficiency: g.efficiency.mean,
    efficiency_bootstrap95_low: g.efficiency.bootstrap.low,
    efficiency_bootstrap95_high: g.efficiency.bootstrap.high,
    mean_actions: g.meanActions,
    tokens_per_experiment: g.tokensPerExperiment,
    cost_usd: g.costUsd,
    from_text_rate: g.fromTextRate,
  };
}

/** The errors of each group with their reasons, e.g. "ollama:qwen | rays: 2 errors: HTTP 500 (2)". */
function errorLines(factors: string[], groups: GroupStatistics[]): string[] {
  return groups
    .filter((g) => g.errors > 0)
    .map(
      (g) =>
        `  ${factors.map((f) => String(g.factors[f])).join(' | ')}: ${g.errors} error${g.errors === 1 ? '' : 's'}: ` +
        g.errorReasons.map((e) => `${e.reason.replace(/\s+/g, ' ').slice(0, 200)} (${e.runs})`).join('; '),
    );
}

/** A suite's reference scores, as lines: what a sweep on the suite's mazes and config compares with. */
type SuiteReference = { suite: string; agents: Record<string, ReferenceStats> } | null;

function referenceLines(r: NonNullable<SuiteReference>, width: number): string[] {
  const pct = (v: number | null) => (v === null ? '-' : `${(v * 100).toFixed(1)}%`);
  return wrapText(
    `reference of suite ${r.suite} (its baselines, the same mazes and config): ` +
      Object.entries(r.agents)
        .map(
          ([agent, o]) =>
            `${agent} ${pct(o.success_rate)} [${pct(o.wilson95_low)}, ${pct(o.wilson95_high)}] n=${o.n}, ` +
            `efficiency ${o.mean_efficiency?.toFixed(3) ?? '-'}`,
        )
        .join('; ') +
      ` (ariadne suite show ${r.suite} has them by generator and size)`,
    width,
  );
}

/** The table, what each column counts, and the errors with their reasons, in lines that fit the layout. */
function statsLines(sweepId: string, s: SweepStatistics, layout: TableLayout, reference: SuiteReference): string[] {
  const factorColumns = s.factors.map((f): Column<GroupStatistics> => ({
    header: f,
    cell: (g) => g.factors[f],
    cut: true,
  }));
  const { lines, hidden } = renderTable(s.groups, [...factorColumns, ...MEASURES], layout);
  const width = layout.width;
  const errors = errorLines(s.factors, s.groups);
  return [
    ...wrapText(`sweep ${sweepId} by ${s.factors.join(' x ')}`, width),
    ...lines,
    ...hiddenNote(hidden),
    ...wrapText(
      'n: successes + failures (every repeat); errors (ended by infrastructure) and running runs are in no ' +
        'denominator. success, wilson95 and maze_bootstrap95 are over the independent runs (a deterministic ' +
        "agent's runs with the same trajectory count once); maze_bootstrap95 resamples mazes " +
        `(${s.resamples} resamples, seed ${s.seed}, percentile). if_errors_failed: success had every error been a ` +
        "failure. identical: model runs whose moves equal another repeat's in their cell. from_text: tool calls " +
        "recovered from the model's reply text. n/a: a setting that does not reach that agent.",
      width,
    ),
    ...(errors.length > 0 ? ['errors:', ...errors.flatMap((e) => wrapText(e, width, '    '))] : []),
    ...provenanceNotes(s).flatMap((n) => wrapText(n, width)),
    ...(reference ? referenceLines(reference, width) : []),
  ];
}

async function stats(
  sweepId: string,
  o: ResultsSource & TableOutputOptions & { by?: string[]; resamples: number },
): Promise<void> {
  if (o.by) checkFactors(o.by); // before opening any database: a typo costs nothing
  outputFormat(o); // so is a contradiction
  await withResultsDatabase(o, async (db) => {
    await requireSweep(db, sweepId);
    const s = await sweepStatistics(db, sweepId, { by: o.by, resamples: o.resamples });
    // a sweep on a maze suite is shown beside the suite's reference scores
    const suite = await sweepSuite(db, sweepId);
    const reference: SuiteReference = suite
      ? {
          suite,
          agents: Object.fromEntries(
            Object.entries(findSuite(suite).suite.reference).map(([agent, r]) => [agent, r.overall]),
          ),
        }
      : null;
    printTableOutput(o, {
      table: (layout) => statsLines(sweepId, s, layout, reference),
      csv: () => s.groups.map(csvRecord),
      // rows: one flat row per group (as before); groups and passK: everything sweep-statistics.ts defines
      json: () => ({ ...s, rows: s.groups.map(factorRow), ...(reference ? { suite_reference: reference } : {}) }),
      paper: () => ({ table: paperTable(sweepId, s), label: `tab:${sweepId}` }),
    });
  });
}

export function registerStatsCommand(program: Command): void {
  const command = addResultsSourceOptions(
    addTableOutputOptions(
      program
        .command('stats')
        .description(
          "a sweep's success (Wilson and maze-clustered bootstrap 95% intervals), errors apart, efficiency, actions, " +
            'tokens, cost and tool calls recovered from text, grouped by its factors: by default the label and every ' +
            'setting the sweep varies',
        )
        .argument('<sweep>')
        .addOption(
          new Option(
            '--by <factors>',
            'comma-separated factors: label, agent, model, maze_generator, maze_size, simulated, or any config ' +
              'setting (observation, vision_range, ollama.num_ctx, ...); simulated is added whenever a sweep has ' +
              'both simulated and real model runs',
          ).argParser((v) =>
            v
              .split(',')
              .map((f) => f.trim())
              .filter(Boolean),
          ),
        )
        .addOption(
          new Option('--resamples <n>', 'bootstrap resamples')
            .default(2_000)
            .argParser(intOption('--resamples', 100, 1_000_000)),
        ),
      'as JSON',
      true,
    ),
  ).action(stats);
  withExample(command, 'ariadne stats baselines-example --by label,maze_size');
}
