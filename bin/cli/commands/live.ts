// `ariadne status` without an execution ARN and `ariadne sweep status`: what is running now, from the results
// database, once or redrawn in place every few seconds (--watch) until nothing runs.
import { Option, type Command } from 'commander';
import type { SqlDatabase } from '../../../lambdas/store/sql.ts';
import { NotFoundError } from '../exit-codes.ts';
import { commandPrefix } from '../invocation.ts';
import { intOption, jsonOption } from '../options.ts';
import { runningExperiments, statusLines, sweepTotals } from '../live-status.ts';
import { addResultsSourceOptions, withResultsDatabase, type ResultsSource } from '../results-database.ts';

export interface LiveOptions extends ResultsSource {
  json?: boolean;
  watch?: boolean;
  interval: number;
}

/** Redraws `lines` in place on a terminal (cursor up, rewrite, clear the rest); piped, prints them. */
function painter(stream: NodeJS.WriteStream) {
  let drawn = 0;
  return (lines: string[]) => {
    if (!stream.isTTY) {
      stream.write(`${lines.join('\n')}\n`);
      return;
    }
    const width = stream.columns ?? 120;
    const fitted = lines.map((l) => (l.length > width - 1 ? `${l.slice(0, width - 2)}…` : l));
    stream.write(`${drawn ? `\x1b[${drawn}A` : ''}${fitted.map((l) => `\x1b[2K${l}`).join('\n')}\n\x1b[J`);
    drawn = fitted.length;
  };
}

async function show(db: SqlDatabase, sweepId: string | undefined, o: LiveOptions): Promise<void> {
  const paint = painter(process.stdout);
  for (;;) {
    const totals = sweepId ? await sweepTotals(db, sweepId) : null;
    if (sweepId && !totals)
      throw new NotFoundError(
        'sweep',
        sweepId,
        `no sweep named "${sweepId}"; list them with: ${commandPrefix()} list --sweeps`,
      );
    const running = await runningExperiments(db, new Date(), sweepId);
    if (o.json) {
      process.stdout.write(`${JSON.stringify({ sweep: totals, running }, null, 2)}\n`);
      return;
    }
    paint(statusLines(running, totals));
    if (!o.watch || running.length === 0) return;
    await new Promise((r) => setTimeout(r, o.interval * 1000));
  }
}

export async function liveStatus(o: LiveOptions, sweepId?: string): Promise<void> {
  await withResultsDatabase(o, (db) => show(db, sweepId, o));
}

/** The options both status views take. */
export function addLiveOptions(command: Command): Command {
  return addResultsSourceOptions(command)
    .option('--watch', 'redraw every few seconds until nothing runs')
    .addOption(
      new Option('--interval <seconds>', 'with --watch: seconds between redraws')
        .default(5)
        .argParser(intOption('--interval', 1, 3600)),
    )
    .addOption(jsonOption('the running experiments (and the sweep totals) as JSON'));
}
