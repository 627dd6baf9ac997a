// `ariadne stats <sweep>`: reports/sweep-statistics.ts as a table, grouped by the factors the sweep varies (or those
// --by names), from the same store as every results command (--aws included). What each column counts is said
// under the table.
import { sweepSuite } from '../../../results/run-state.ts';
import { findSuite, type MazeSuite, type ReferenceStats } from '../../../core/maze/suites.ts';
import { suiteHumans, type SuiteHumans } from '../../../reports/human-reference.ts';
import { noiseFloorText } from '../../../reports/noise-floor.ts';
import { sequentialText } from '../../../reports/sequential-stop.ts';
import { sweepSequentialState } from '../../../reports/sweep-stop-rule.ts';
import { Option, type Command } from 'commander';
import { withExample } from '../help.ts';
import { intOption } from '../options.ts';
import { hiddenNote, renderTable, wrapText, type Column, type TableLayout } from '../table.ts';
import { addTableOutputOptions, outputFormat, printTableOutput, type TableOutputOptions } from '../table-output.ts';
import { BEHAVIOUR_SKIP, requireSweep } from './results.ts';
import { addResultsSourceOptions, withResultsDatabase, type ResultsSource } from '../results-database.ts';
import { checkFactors } from '../../../reports/factors.ts';
import { factorRow } from '../../../reports/factor-stats.ts';
import { sweepStatistics, type GroupStatistics, type SweepStatistics } from '../../../reports/sweep-statistics.ts';
import { formatCost, formatInterval, formatNumber, formatRate } from '../../../reports/stat-format.ts';
import { paperTable, provenanceNotes } from '../../../reports/paper-table.ts';
import { MIN_BOOTSTRAP_MAZES } from '../../../reports/maze-inference.ts';
import { stopReasonsText } from '../../../results/stop-reasons.ts';
import { numberInterval } from '../../../reports/stat-text.ts';
import { plural } from '../../../reports/words.ts';
import { sweepPlan, type SweepPlan } from '../../../results/sweep-plan.ts';
import { planComplete, planLines } from '../../../reports/plan-text.ts';
import { commandPrefix } from '../invocation.ts';
import { BEHAVIOUR_NOTES, behaviourSentence } from '../../../reports/behaviour-text.ts';
import type { Estimate } from '../../../reports/behaviour-statistics.ts';

// The statistics as columns; a table too wide for the terminal drops the highest `drop` first, keeping the factors,
// n, the success rate, its maze-level interval and the mazes it is over (--wide shows them all).
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
    { header: 'maze95', cell: (g) => formatInterval(g.success.maze.low, g.success.maze.high) },
    { header: 'mazes', cell: (g) => g.mazes },
    { header: 'wilson95_runs', cell: (g) => formatInterval(g.success.wilson.low, g.success.wilson.high), drop: 15 },
    { header: 'maze_bootstrap95', cell: (g) => bootstrapCell(g), drop: 3 },
    { header: 'wall_clock', cell: (g) => g.wallClock, drop: 16 },
    {
      header: 'if_errors_failed',
      cell: (g) => {
        const { rate, maze } = g.ifErrorsFailed;
        return g.erroredAttempts + g.wallClock === 0
          ? '-'
          : `${formatRate(rate)} (${maze.low === null ? 'too few mazes' : formatInterval(maze.low, maze.high)})`;
      },
      drop: 10,
    },
    { header: 'spl', cell: (g) => formatNumber(g.spl.mean, 3), drop: 4 },
    { header: 'spl95', cell: (g) => numberInterval(g.spl.interval), drop: 17 },
    { header: 'efficiency_of_successes', cell: (g) => formatNumber(g.efficiency.mean, 3), drop: 4 },
    { header: 'efficiency95', cell: (g) => numberInterval(g.efficiency.interval), drop: 11 },
    { header: 'actions', cell: (g) => formatNumber(g.meanActions, 1), drop: 8 },
    { header: 'tokens', cell: (g) => formatNumber(g.tokensPerExperiment, 1), drop: 13 },
    { header: 'cost', cell: (g) => formatCost(g.costUsd), drop: 5 },
    { header: 'attempts', cell: (g) => g.attempts, drop: 15 },
    { header: 'from_text', cell: (g) => (g.fromTextRate === null ? '-' : formatRate(g.fromTextRate)), drop: 14 },
    { header: 'looped', cell: (g) => formatRate(g.behaviour?.looped.value), drop: 18 },
    { header: 'revisits', cell: (g) => formatNumber(g.behaviour?.revisitRatio.value, 3), drop: 19 },
    { header: 'bumps_100', cell: (g) => formatNumber(g.behaviour?.wallBumpsPer100.value, 1), drop: 20 },
  ] satisfies Array<Column<GroupStatistics>>
).map((c): Column<GroupStatistics> => ({ ...c, align: 'right' }));

/** Belief probes' columns, for a sweep whose runs answered some (the first a narrow table drops). */
const BELIEF: Array<Column<GroupStatistics>> = [
  { header: 'belief', cell: (g) => formatNumber(g.belief.mean, 3), drop: 18, align: 'right' },
  { header: 'belief95', cell: (g) => numberInterval(g.belief.interval), drop: 19, align: 'right' },
];
const probed = (s: SweepStatistics) => s.groups.some((g) => g.belief.runs > 0);

function bootstrapCell(g: GroupStatistics): string {
  if (g.success.bootstrapStatus === 'too few mazes') return 'too few mazes';
  return formatInterval(g.success.bootstrap.low, g.success.bootstrap.high);
}

/** A group by its factors' values, "ollama:qwen | rays", for the lines under the table. */
const groupName = (factors: string[], g: GroupStatistics) => factors.map((f) => String(g.factors[f])).join(' | ');

/** Every column of the table as full values, intervals as their two bounds: one flat record per group (csv). */
function csvRecord(g: GroupStatistics): Record<string, unknown> {
  return {
    ...g.factors,
    runs: g.runs,
    n: g.n,
    successes: g.successes,
    errors: g.errors,
    attempts: g.attempts,
    errored_attempts: g.erroredAttempts,
    retried_errors: g.retriedErrors,
    running: g.running,
    independent: g.independent,
    identical_repeats: g.identicalRepeats,
    model_runs: g.modelRuns,
    success_rate: g.success.rate,
    maze95_low: g.success.maze.low,
    maze95_high: g.success.maze.high,
    mazes: g.mazes,
    wilson95_runs_low: g.success.wilson.low,
    wilson95_runs_high: g.success.wilson.high,
    maze_bootstrap95_low: g.success.bootstrap.low,
    maze_bootstrap95_high: g.success.bootstrap.high,
    maze_bootstrap95_status: g.success.bootstrapStatus,
    wall_clock: g.wallClock,
    if_errors_failed_rate: g.ifErrorsFailed.rate,
    if_errors_failed_low: g.ifErrorsFailed.maze.low,
    if_errors_failed_high: g.ifErrorsFailed.maze.high,
    spl: g.spl.mean,
    spl95_low: g.spl.interval.low,
    spl95_high: g.spl.interval.high,
    efficiency_of_successes: g.efficiency.mean,
    efficiency95_low: g.efficiency.interval.low,
    efficiency95_high: g.efficiency.interval.high,
    ...Object.fromEntries(Object.entries(g.stopReasons).map(([reason, runs]) => [`stop_${reason}`, runs])),
    mean_actions: g.meanActions,
    tokens_per_experiment: g.tokensPerExperiment,
    tokens: g.tokens,
    cost_usd: g.costUsd,
    from_text_rate: g.fromTextRate,
    belief_accuracy: g.belief.mean,
    belief_runs: g.belief.runs,
    belief95_low: g.belief.interval.low,
    belief95_high: g.belief.interval.high,
    belief_probes_answered: g.belief.probes.answered,
    belief_probes_malformed: g.belief.probes.malformed,
    belief_probes_unanswered: g.belief.probes.unanswered,
    belief_unanswered_runs: g.belief.unansweredRuns,
    ...behaviourColumns(g),
  };
}

/** A behaviour figure as csv columns: its value and its maze-level bounds. */
const estimateColumns = (name: string, e: Estimate | undefined) => ({
  [name]: e?.value ?? null,
  [`${name}95_low`]: e?.low ?? null,
  [`${name}95_high`]: e?.high ?? null,
});

/** The behaviour figures of a group as csv columns (reports/behaviour-statistics.ts). */
function behaviourColumns(g: GroupStatistics): Record<string, unknown> {
  const b = g.behaviour;
  return {
    behaviour_runs: b?.runs ?? null,
    ...estimateColumns('looped_rate', b?.looped),
    ...estimateColumns('revisit_ratio', b?.revisitRatio),
    ...estimateColumns('wall_bumps_per_100', b?.wallBumpsPer100),
    ...estimateColumns('dead_end_reentries_per_100', b?.deadEndReentriesPer100),
    ...estimateColumns('oscillation_moves_per_100', b?.oscillationMovesPer100),
    ...estimateColumns('tiles_vs_frontier', b?.explorationEfficiency),
    ...estimateColumns('stalled_share_of_failures', b?.stalledShare),
  };
}

/** How each group's runs moved, with maze-level intervals, and what each figure counts. */
function behaviourLines(factors: string[], groups: GroupStatistics[], width: number): string[] {
  const lines = groups.flatMap((g) =>
    g.behaviour ? [`  ${groupName(factors, g)}: ${behaviourSentence(g.behaviour)}`] : [],
  );
  if (lines.length === 0) return [];
  return [
    'behaviour (maze-level 95% intervals, mazes):',
    ...lines.flatMap((l) => wrapText(l, width, '    ')),
    ...wrapText(BEHAVIOUR_NOTES.join(' '), width),
  ];
}

/**
 * The errors of each group with their reasons, e.g. "ollama:qwen | rays: 2 errors: HTTP 500 (2)"; with errors in
 * attempts a retry replaced, every attempt's: "3 attempts ended in error, 1 of them retried to a finished run: ...".
 */
function errorLines(factors: string[], groups: GroupStatistics[]): string[] {
  return groups
    .filter((g) => g.erroredAttempts > 0)
    .map(
      (g) =>
        `  ${groupName(factors, g)}: ` +
        (g.erroredAttempts === g.errors
          ? `${plural(g.errors, 'error')}: `
          : `${plural(g.erroredAttempts, 'attempt')} ended in error, ${g.retriedErrors} of them retried to a ` +
            'finished run: ') +
        g.attemptErrorReasons.map((e) => `${e.reason.replace(/\s+/g, ' ').slice(0, 200)} (${e.attempts})`).join('; '),
    );
}

/** A suite's reference scores, as lines: what a sweep on the suite's mazes and config compares with. */
type SuiteReference = {
  suite: string;
  agents: Record<string, ReferenceStats>;
  noise_floor: MazeSuite['noise_floor'];
} | null;

const pct = (v: number | null) => (v === null ? '-' : `${(v * 100).toFixed(1)}%`);

/** A suite's human reference beside its baselines': the people's games on its mazes, over all of them. */
function humanReferenceLines(h: SuiteHumans, width: number): string[] {
  const overall = h.rows.filter((r) => r.generator === 'all');
  if (overall.length === 0) return [];
  const where =
    h.source === 'database'
      ? "agent human's games on its mazes in this database"
      : `shipped with the suite, recorded ${h.recorded_at?.slice(0, 10)}`;
  return wrapText(
    `human reference of suite ${h.suite} (${where}, each maze once per player): ` +
      overall
        .map(
          (o) =>
            `${o.player ?? 'all players'} (${o.observation}) ${pct(o.success_rate)} ` +
            `[${pct(o.low95)}, ${pct(o.high95)}]${o.interval === 'maze' ? ' over mazes' : ''} n=${o.n}, ` +
            `efficiency ${o.mean_efficiency?.toFixed(3) ?? '-'}`,
        )
        .join('; ') +
      ` (${commandPrefix()} suite show ${h.suite}${h.source === 'database' ? ' --humans' : ''} has them by ` +
      'generator and size)',
    width,
  );
}

function referenceLines(r: NonNullable<SuiteReference>, width: number): string[] {
  return wrapText(
    `reference of suite ${r.suite} (its baselines, the same mazes and config): ` +
      Object.entries(r.agents)
        .map(
          ([agent, o]) =>
            `${agent} ${pct(o.success_rate)} [${pct(o.wilson95_low)}, ${pct(o.wilson95_high)}] n=${o.n}, ` +
            `efficiency ${o.mean_efficiency?.toFixed(3) ?? '-'}`,
        )
        .join('; ') +
      ` (${commandPrefix()} suite show ${r.suite} has them by generator and size)`,
    width,
  ).concat(wrapText(noiseFloorText(r.suite, r.noise_floor.overall, r.noise_floor.repeats), width));
}

/** What each column counts and excludes, with the sweep's bootstrap settings. */
function statsNote(s: SweepStatistics): string {
  return (
    'n: successes + failures (every repeat); errors (ended by infrastructure), wall_clock (stopped by ' +
    'max_duration_minutes: the serving stack decided them) and running runs are in no denominator. success and its ' +
    "intervals are over the independent runs (a deterministic agent's runs with the same trajectory count once). " +
    'maze95: the interval at the level of the maze, the unit of replication (Korn-Graubard Clopper-Pearson on the ' +
    `design-effect sample, t on mazes - 1 df); mazes: how many it is over. wilson95_runs: as if runs were ` +
    `independent (too narrow when repeats share a maze). maze_bootstrap95 resamples mazes (${s.resamples} ` +
    `resamples, seed ${s.seed}, percentile; not drawn below ${MIN_BOOTSTRAP_MAZES} mazes, the maze interval where ` +
    'it collapses). attempts: every attempt of the runs (a sweep run again retries its failed runs). ' +
    'if_errors_failed: success had every wall-clock stop and every run with an attempt in error (retried or not) ' +
    'been a failure. tokens: per run, input + cache reads and writes + output of its latest attempt; cost: every ' +
    "attempt's. spl: success " +
    'weighted by path length (a failure scores 0); efficiency_of_successes: optimal / actions over successes only. ' +
    "identical: model runs whose moves equal another repeat's in their cell. from_text: tool calls recovered from " +
    "the model's reply text. n/a: a setting that does not reach that agent." +
    (probed(s)
      ? " belief: over the runs with an answered belief probe, the mean of each run's mean share of the cells it had " +
        'been shown that its probes gave right (each run weighs the same, each answered probe the same within its ' +
        'run; a malformed answer counts 0), with its maze-level interval (belief95, logit scale). Probes that ' +
        'failed or were skipped have no answer and are in no mean: "belief probes" below counts them.'
      : '')
  );
}

/**
 * What each group's belief mean is over and what it leaves out, e.g. "ollama:qwen | rays: 40 answered (3 malformed,
 * scored 0) in 6 runs; left out: 2 failed or skipped".
 */
function beliefLines(factors: string[], groups: GroupStatistics[]): string[] {
  const lines = groups
    .filter((g) => g.belief.probes.answered + g.belief.probes.unanswered > 0)
    .map((g) => {
      const b = g.belief;
      const left = [
        b.probes.unanswered > 0 ? `${b.probes.unanswered} failed or skipped` : '',
        b.unansweredRuns > 0 ? `${plural(b.unansweredRuns, 'run')} with no answered probe` : '',
      ].filter(Boolean);
      return (
        `  ${groupName(factors, g)}: ${b.probes.answered} answered` +
        (b.probes.malformed > 0 ? ` (${b.probes.malformed} malformed, scored 0)` : '') +
        ` in ${plural(b.runs, 'run')}` +
        (left.length > 0 ? `; left out: ${left.join(', ')}` : '')
      );
    });
  return lines.length === 0 ? [] : ['belief probes:', ...lines];
}

/** How each group's runs ended, e.g. "frontier | rays: goal 10, move limit 2". */
function stopLines(factors: string[], groups: GroupStatistics[]): string[] {
  return ['how runs ended:', ...groups.map((g) => `  ${groupName(factors, g)}: ${stopReasonsText(g.stopReasons)}`)];
}

/** The table, what each column counts, and the errors with their reasons, in lines that fit the layout. */
function statsLines(
  sweepId: string,
  s: SweepStatistics,
  layout: TableLayout,
  reference: SuiteReference,
  plan: SweepPlan,
  humans: SuiteHumans[],
): string[] {
  const factorColumns = s.factors.map((f): Column<GroupStatistics> => ({
    header: f,
    cell: (g) => g.factors[f],
    cut: true,
  }));
  const measures = probed(s) ? [...MEASURES, ...BELIEF] : MEASURES;
  const { lines, hidden } = renderTable(s.groups, [...factorColumns, ...measures], layout);
  const width = layout.width;
  const errors = errorLines(s.factors, s.groups);
  return [
    ...wrapText(`sweep ${sweepId} by ${s.factors.join(' x ')}`, width),
    ...lines,
    ...hiddenNote(hidden),
    // first under the table: a sweep cut short says so, and names the cells it misses
    ...planLines(plan).flatMap((l) => wrapText(l, width, '    ')),
    ...wrapText(statsNote(s), width),
    ...stopLines(s.factors, s.groups).flatMap((line) => wrapText(line, width, '    ')),
    ...beliefLines(s.factors, s.groups).flatMap((line) => wrapText(line, width, '    ')),
    ...behaviourLines(s.factors, s.groups, width),
    ...(errors.length > 0 ? ['errors:', ...errors.flatMap((e) => wrapText(e, width, '    '))] : []),
    ...provenanceNotes(s).flatMap((n) => wrapText(n, width)),
    ...(reference ? referenceLines(reference, width) : []),
    ...humans.flatMap((h) => humanReferenceLines(h, width)),
  ];
}

async function stats(
  sweepId: string,
  o: ResultsSource & TableOutputOptions & { by?: string[]; resamples: number; behaviour: boolean },
): Promise<void> {
  if (o.by) checkFactors(o.by); // before opening any database: a typo costs nothing
  outputFormat(o); // so is a contradiction
  await withResultsDatabase(o, async (db) => {
    await requireSweep(db, sweepId);
    const [s, plan, sequential] = await Promise.all([
      sweepStatistics(db, sweepId, { by: o.by, resamples: o.resamples, behaviour: o.behaviour }),
      sweepPlan(db, sweepId),
      sweepSequentialState(db, sweepId),
    ]);
    // a sweep on a maze suite is shown beside the suite's reference scores
    const suite = await sweepSuite(db, sweepId);
    const reference: SuiteReference = suite
      ? {
          suite,
          agents: Object.fromEntries(
            Object.entries(findSuite(suite).suite.reference).map(([agent, r]) => [agent, r.overall]),
          ),
          noise_floor: findSuite(suite).suite.noise_floor,
        }
      : null;
    // and the people's games on its mazes: shipped with the suite, and in this database, when there are any
    const humansShown = suite ? await suiteHumans(db, suite) : [];
    printTableOutput(o, {
      table: (layout) => [
        ...statsLines(sweepId, s, layout, reference, plan!, humansShown),
        ...(sequential ? wrapText(sequentialText(sequential, !planComplete(plan!)), layout.width) : []),
      ],
      csv: () => s.groups.map(csvRecord),
      // rows: one flat row per group (as before); groups and passK: everything sweep-statistics.ts defines
      json: () => ({
        ...s,
        groups: s.groups.map((g) => ({ ...g, stop_reasons: g.stopReasons })),
        rows: s.groups.map(factorRow),
        plan,
        ...(reference ? { suite_reference: reference } : {}),
        ...(humansShown.length > 0 ? { suite_human_reference: humansShown } : {}),
        ...(sequential ? { sequential } : {}),
      }),
      paper: () => ({ table: paperTable(sweepId, s, plan!, sequential), label: `tab:${sweepId}` }),
    });
  });
}

export function registerStatsCommand(program: Command): void {
  const command = addResultsSourceOptions(
    addTableOutputOptions(
      program
        .command('stats')
        .description(
          "a sweep's success (95% intervals at the level of the maze, with the number of mazes), errors and " +
            'wall-clock stops apart, how runs ended, SPL, efficiency, actions, tokens, cost, tool calls recovered ' +
            'from text and how runs moved (loops, wall bumps, revisits, dead ends, oscillations, exploration against ' +
            'the frontier baseline, where progress stopped), grouped by its factors: by default the label and every ' +
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
        )
        .option('--no-behaviour', BEHAVIOUR_SKIP),
      'as JSON',
      true,
    ),
  ).action(stats);
  withExample(command, 'ariadne stats baselines-example --by label,maze_size');
}
