// `ariadne status` without an execution ARN and `ariadne sweep status`: what is running now, from the results
// database, once or redrawn in place every few seconds (--watch) until nothing runs.
import { Option, type Command } from 'commander';
import type { SqlDatabase } from '../../../core/store/sql.ts';
import type { StackOutputs } from '../../../lib/stack-outputs.ts';
import { NotFoundError } from '../exit-codes.ts';
import { commandPrefix } from '../invocation.ts';
import { interruptedNote } from '../interrupt.ts';
import { intOption } from '../options.ts';
import { blockPainter } from '../redraw.ts';
import { outageLine } from '../progress.ts';
import { statusLines } from '../../../reports/live-status.ts';
import {
  minutes,
  runningExperiments,
  sweepTotals,
  type RunningExperiment,
  type SweepTotals,
} from '../../../results/live-status.ts';
import { hiddenNote, renderTable, wrapText, type Column, type TableLayout } from '../table.ts';
import { addTableOutputOptions, outputFormat, tableLayout, type TableOutputOptions } from '../table-output.ts';
import { csvText } from '../../../reports/csv.ts';
import { addResultsSourceOptions, withResultsDatabase, type ResultsSource } from '../results-database.ts';
import type { SFNClient } from '@aws-sdk/client-sfn';

export interface LiveOptions extends ResultsSource, TableOutputOptions {
  watch?: boolean;
  interval: number;
}

/** Redraws `lines` in place on a terminal; piped, prints them. */
function painter(stream: NodeJS.WriteStream) {
  const paint = blockPainter(stream);
  return (lines: string[]) => (stream.isTTY ? paint(lines) : stream.write(`${lines.join('\n')}\n`));
}

/** Executions Step Functions says are running, per machine of the stack (ListExecutions, at most 1000 each). */
async function runningExecutions(
  client: SFNClient,
  stack: StackOutputs,
): Promise<{ experiments: number; sweeps: number }> {
  const { ListExecutionsCommand } = await import('@aws-sdk/client-sfn');
  const count = async (stateMachineArn: string) =>
    (await client.send(new ListExecutionsCommand({ stateMachineArn, statusFilter: 'RUNNING', maxResults: 1000 })))
      .executions?.length ?? 0;
  return { experiments: await count(stack.stateMachineArn), sweeps: await count(stack.sweepStateMachineArn) };
}

/**
 * A stale experiment's reason, completed with what Step Functions says of its newest execution (DescribeExecution):
 * ended while the database still says running (the finalizer missed its status-change event), or still running
 * (a turn stuck in its Task's retries).
 */
async function withExecutionStatus(client: SFNClient, running: RunningExperiment[]): Promise<void> {
  const { DescribeExecutionCommand } = await import('@aws-sdk/client-sfn');
  for (const r of running.filter((x) => x.stale && x.execution_arn)) {
    try {
      const e = await client.send(new DescribeExecutionCommand({ executionArn: r.execution_arn! }));
      r.stale +=
        e.status === 'RUNNING'
          ? `; its execution is still RUNNING: see its history in the Step Functions console`
          : `; its execution ended ${e.status}${e.stopDate ? ` at ${e.stopDate.toISOString()}` : ''}` +
            `${e.error ? ` (${e.error}${e.cause ? `: ${e.cause.slice(0, 200)}` : ''})` : ''}, ` +
            'but the database was not told (the finalizer missed its event)';
    } catch (err) {
      r.stale += `; its execution could not be described (${(err as Error).name})`;
    }
  }
}

const CSV_COLUMNS: Array<keyof RunningExperiment> = [
  'experiment_id',
  'agent',
  'model',
  'sweep_id',
  'turns',
  'actions',
  'tiles_seen',
  'goal_found',
  'started_at',
  'updated_at',
  'cost_usd',
  'execution_arn',
  'stale',
  'interrupted',
  'provider_down_since',
  'provider_next_try_at',
];

/** A run waiting out a provider outage, as the live line of `ariadne run` says it; null for any other. */
function outageOf(r: RunningExperiment, now = Date.now()): string | null {
  if (r.interrupted || !r.provider_down_since || !r.provider_next_try_at) return null;
  return outageLine(new Date(r.provider_down_since).getTime(), new Date(r.provider_next_try_at).getTime(), now);
}

/** The running experiments' columns, at `now`; a stale one's reason is said under the table, in full. */
function runningColumns(now: Date): Column<RunningExperiment>[] {
  const age = (r: RunningExperiment) => Math.round((now.getTime() - new Date(r.started_at).getTime()) / 1000);
  return [
    { header: 'id', cell: (r) => r.experiment_id },
    { header: 'agent/model', cell: (r) => r.model ?? r.agent, cut: true },
    { header: 'turn', cell: (r) => r.turns, align: 'right', drop: 4 },
    { header: 'actions', cell: (r) => r.actions, align: 'right', drop: 3 },
    { header: 'tiles', cell: (r) => r.tiles_seen, align: 'right', drop: 6 },
    { header: 'goal', cell: (r) => (r.goal_found ? 'found' : '-'), drop: 5 },
    { header: 'running', cell: (r) => minutes(age(r)), align: 'right', drop: 2 },
    { header: 'cost', cell: (r) => (r.cost_usd ? `$${r.cost_usd.toFixed(4)}` : '-'), align: 'right', drop: 7 },
    {
      header: 'stale',
      cell: (r) => (r.interrupted ? 'INTERRUPTED' : r.stale ? 'STALE' : outageOf(r) ? 'WAITING' : ''),
    },
  ];
}

/** What a terminal shows: the executions on AWS, the sweep's totals, the running experiments, why any is stale. */
function liveLines(
  running: RunningExperiment[],
  totals: SweepTotals | null,
  executions: { experiments: number; sweeps: number } | undefined,
  layout: TableLayout,
): string[] {
  const head = [
    ...(executions
      ? [
          `on AWS: ${executions.experiments} experiment execution(s) and ${executions.sweeps} sweep ` +
            'execution(s) running',
        ]
      : []),
    ...statusLines(running, totals),
  ].flatMap((l) => wrapText(l, layout.width, '  '));
  if (running.length === 0) return head;
  const { lines, hidden } = renderTable(running, runningColumns(new Date()), layout);
  const stale = running
    .filter((r) => r.stale)
    .flatMap((r) => wrapText(`STALE ${r.experiment_id}: ${r.stale}`, layout.width, '  '));
  const interrupted = running
    .filter((r) => r.interrupted)
    .flatMap((r) => wrapText(`INTERRUPTED ${r.experiment_id}: ${interruptedNote(r)}`, layout.width, '  '));
  const waiting = running.flatMap((r) => {
    const outage = outageOf(r);
    return outage ? wrapText(`WAITING ${r.experiment_id}: ${outage}`, layout.width, '  ') : [];
  });
  return [...head, ...lines.slice(0, -1), ...hiddenNote(hidden), ...stale, ...interrupted, ...waiting];
}

/** `sfn`: the deployed stack's Step Functions, one client for every redraw. */
async function show(
  db: SqlDatabase,
  sweepId: string | undefined,
  o: LiveOptions,
  aws?: { stack: StackOutputs; sfn: SFNClient },
) {
  const paint = painter(process.stdout);
  for (;;) {
    const executions = aws ? await runningExecutions(aws.sfn, aws.stack) : undefined;
    const totals = sweepId ? await sweepTotals(db, sweepId) : null;
    if (sweepId && !totals)
      throw new NotFoundError(
        'sweep',
        sweepId,
        `no sweep named "${sweepId}"; list them with: ${commandPrefix()} list --sweeps`,
      );
    const running = await runningExperiments(db, new Date(), sweepId);
    if (aws) await withExecutionStatus(aws.sfn, running);
    const format = outputFormat(o);
    if (format === 'json') {
      process.stdout.write(
        `${JSON.stringify(
          {
            sweep: totals,
            running: running.map((r) => ({ ...r, outage: outageOf(r) })),
            ...(executions && { executions }),
          },
          null,
          2,
        )}\n`,
      );
      return;
    }
    if (format === 'csv') {
      // the running experiments, one a row; the totals are --format json's
      process.stdout.write(
        csvText(
          running.map((r) => ({ ...r })),
          CSV_COLUMNS,
        ),
      );
      return;
    }
    paint(liveLines(running, totals, executions, tableLayout(o)));
    // interrupted runs wait for a resume: nothing to watch
    if (!o.watch || running.every((r) => r.interrupted)) return;
    await new Promise((r) => setTimeout(r, o.interval * 1000));
  }
}

export async function liveStatus(o: LiveOptions, sweepId?: string): Promise<void> {
  await withResultsDatabase(o, async (db, stack) => {
    if (!stack) return show(db, sweepId, o);
    const sfn = new (await import('@aws-sdk/client-sfn')).SFNClient({ region: stack.region });
    try {
      await show(db, sweepId, o, { stack, sfn });
    } finally {
      sfn.destroy();
    }
  });
}

/** The options both status views take. */
export function addLiveOptions(command: Command): Command {
  return addTableOutputOptions(
    addResultsSourceOptions(command)
      .option('--watch', 'redraw every few seconds until nothing runs')
      .addOption(
        new Option('--interval <seconds>', 'with --watch: seconds between redraws')
          .default(5)
          .argParser(intOption('--interval', 1, 3600)),
      ),
    'the running experiments (and the sweep totals) as JSON',
  );
}
