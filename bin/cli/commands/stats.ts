// `ariadne stats <sweep>`: reports/sweep-statistics.ts as a table, grouped by the factors the sweep varies (or those
// --by names), from the same store as every results command (--aws included). What each column counts is said
// under the table.
import { Option, type Command } from 'commander';
import { withExample } from '../help.ts';
import { intOption, jsonOption } from '../options.ts';
import { formatTable } from '../table.ts';
import { requireSweep } from './results.ts';
import { addResultsSourceOptions, withResultsDatabase, type ResultsSource } from '../results-database.ts';
import { checkFactors } from '../../../reports/factors.ts';
import { factorRow } from '../../../reports/factor-stats.ts';
import { sweepStatistics, type GroupStatistics } from '../../../reports/sweep-statistics.ts';
import { formatCost, formatInterval, formatNumber, formatRate } from '../../../reports/stat-format.ts';

const MEASURES = [
  'runs',
  'n',
  'errors',
  'running',
  'independent',
  'identical',
  'success',
  'wilson95',
  'maze_bootstrap95',
  'if_errors_failed',
  'efficiency',
  'efficiency_bootstrap95',
  'actions',
  'tokens',
  'cost',
  'from_text',
];

function row(g: GroupStatistics): Record<string, unknown> {
  const ew = g.ifErrorsFailed.wilson;
  return {
    ...g.factors,
    runs: g.runs,
    n: g.n,
    errors: g.errors,
    running: g.running,
    independent: g.independent,
    identical: g.modelRuns === 0 ? '-' : `${g.identicalRepeats} of ${g.modelRuns}`,
    success: formatRate(g.success.rate),
    wilson95: formatInterval(g.success.wilson.low, g.success.wilson.high),
    maze_bootstrap95: formatInterval(g.success.bootstrap.low, g.success.bootstrap.high),
    if_errors_failed:
      g.errors === 0 ? '-' : `${formatRate(g.ifErrorsFailed.rate)} (${formatInterval(ew.low, ew.high)})`,
    efficiency: formatNumber(g.efficiency.mean, 3),
    efficiency_bootstrap95:
      g.efficiency.bootstrap.low === null
        ? '-'
        : `${formatNumber(g.efficiency.bootstrap.low, 3)} - ${formatNumber(g.efficiency.bootstrap.high, 3)}`,
    actions: formatNumber(g.meanActions, 1),
    tokens: formatNumber(g.tokensPerExperiment, 1),
    cost: formatCost(g.costUsd),
    from_text: g.fromTextRate === null ? '-' : formatRate(g.fromTextRate),
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

async function stats(
  sweepId: string,
  o: ResultsSource & { by?: string[]; resamples: number; json?: boolean },
): Promise<void> {
  if (o.by) checkFactors(o.by); // before opening any database: a typo costs nothing
  await withResultsDatabase(o, async (db) => {
    await requireSweep(db, sweepId);
    const s = await sweepStatistics(db, sweepId, { by: o.by, resamples: o.resamples });
    if (o.json) {
      // rows: one flat row per group (as before); groups and passK: everything sweep-statistics.ts defines
      process.stdout.write(`${JSON.stringify({ ...s, rows: s.groups.map(factorRow) }, null, 2)}\n`);
      return;
    }
    const errors = errorLines(s.factors, s.groups);
    process.stdout.write(
      `sweep ${sweepId} by ${s.factors.join(' x ')}\n` +
        `${formatTable(s.groups.map(row), [...s.factors, ...MEASURES], { right: MEASURES })}\n` +
        'n: successes + failures (every repeat); errors (ended by infrastructure) and running runs are in no ' +
        'denominator. success, wilson95 and maze_bootstrap95 are over the independent runs (a deterministic ' +
        "agent's runs with the same trajectory count once); maze_bootstrap95 resamples mazes " +
        `(${s.resamples} resamples, seed ${s.seed}, percentile). if_errors_failed: success had every error been a ` +
        "failure. identical: model runs whose moves equal another repeat's in their cell. from_text: tool calls " +
        "recovered from the model's reply text. n/a: a setting that does not reach that agent.\n" +
        (errors.length > 0 ? `errors:\n${errors.join('\n')}\n` : ''),
    );
  });
}

export function registerStatsCommand(program: Command): void {
  const command = addResultsSourceOptions(
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
          'comma-separated factors: label, agent, model, maze_generator, maze_size, or any config setting ' +
            '(observation, vision_range, ollama.num_ctx, ...)',
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
      .addOption(jsonOption('as JSON')),
  ).action(stats);
  withExample(command, 'ariadne stats baselines-example --by label,maze_size');
}
