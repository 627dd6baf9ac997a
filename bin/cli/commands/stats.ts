// `ariadne stats <sweep>`: success with its Wilson interval, efficiency, actions, tokens and cost, grouped by the
// factors the sweep varies (or those --by names), from the same store as every results command (--aws included).
import { Option, type Command } from 'commander';
import { withExample } from '../help.ts';
import { jsonOption } from '../options.ts';
import { formatTable } from '../table.ts';
import { requireSweep } from './results.ts';
import { addResultsSourceOptions, withResultsDatabase, type ResultsSource } from '../results-database.ts';
import { checkFactors, factorStats, varyingFactors } from '../../../reports/factor-stats.ts';

const MEASURES = [
  'n',
  'successes',
  'n_independent',
  'success_rate',
  'success_low95',
  'success_high95',
  'mean_efficiency',
  'mean_actions',
  'tokens_per_experiment',
  'cost_usd',
];

async function stats(sweepId: string, o: ResultsSource & { by?: string[]; json?: boolean }): Promise<void> {
  if (o.by) checkFactors(o.by); // before opening any database: a typo costs nothing
  await withResultsDatabase(o, async (db) => {
    await requireSweep(db, sweepId);
    const factors = o.by ?? (await varyingFactors(db, sweepId));
    const rows = await factorStats(db, sweepId, factors);
    if (o.json) {
      process.stdout.write(`${JSON.stringify({ sweep: sweepId, factors, rows }, null, 2)}\n`);
      return;
    }
    process.stdout.write(
      `sweep ${sweepId} by ${factors.join(' x ')} (success over independent runs, Wilson 95% interval)\n` +
        `${formatTable(rows, [...factors, ...MEASURES], { right: MEASURES })}\n`,
    );
  });
}

export function registerStatsCommand(program: Command): void {
  const command = addResultsSourceOptions(
    program
      .command('stats')
      .description(
        "a sweep's success (Wilson 95% interval), efficiency, actions, tokens and cost grouped by its factors: " +
          'by default the label and every setting the sweep varies',
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
      .addOption(jsonOption('as JSON')),
  ).action(stats);
  withExample(command, 'ariadne stats baselines-example --by label,maze_size');
}
