// ariadne list: the stored experiments (or sweeps), newest first, so an id is never more than one command away.
import { Option, type Command } from 'commander';
import { InvalidInputError } from '../../../lambdas/engine/errors.ts';
import { readPaged } from '../../../lambdas/store/pages.ts';
import type { ExperimentStatus } from '../../../lambdas/engine/store.ts';
import { addResultsSourceOptions, withResultsDatabase, type ResultsSource } from '../results-database.ts';
import { withExample } from '../help.ts';
import { commandPrefix } from '../invocation.ts';
import { choiceOption, intOption, jsonOption } from '../options.ts';
import { formatTable } from '../table.ts';

const STATUSES = ['completed', 'timeout', 'failed', 'stuck', 'running'] as const satisfies readonly ExperimentStatus[];

interface ListOptions extends ResultsSource {
  sweep?: string;
  status?: ExperimentStatus;
  agent?: string;
  limit: number;
  sweeps?: boolean;
  json?: boolean;
}

interface ExperimentRow {
  experiment_id: string;
  agent: string;
  provider: string;
  model: string | null;
  label: string | null;
  sweep_id: string | null;
  prompt_version: string | null;
  maze_generator: string;
  maze_width: number;
  maze_height: number;
  maze_seed: number | null;
  status: string;
  goal_found: boolean;
  stop_reason: string | null;
  actions: number;
  optimal_moves: number;
  efficiency: number | null;
  llm_calls: number;
  cost_usd: number | null;
  started_at: Date;
  completed_at: Date | null;
}

// The filters and the limit pick ids from the tables first: the summary view counts every run's actions, so it is
// joined for the rows shown only. $4 rows in all, read in pages of $6 from offset $5 (see pagedList).
const EXPERIMENTS_SQL = `
WITH picked AS (
  SELECT e.id, e.sweep_id, c.label
  FROM experiments e
  LEFT JOIN sweep_cells c ON c.sweep_id = e.sweep_id AND c.cell_index = e.sweep_cell
  WHERE ($1::text IS NULL OR e.sweep_id = $1)
    AND ($2::text IS NULL OR e.status = $2)
    AND ($3::text IS NULL OR $3 IN (e.agent, e.model, c.label))
  ORDER BY e.started_at DESC, e.id
  LIMIT least($4::int - $5::int, $6::int) OFFSET $5
)
SELECT s.experiment_id, s.agent, s.provider, s.model, p.label, p.sweep_id, s.prompt_version, s.maze_generator,
       s.maze_width, s.maze_height, s.maze_seed, s.status, s.goal_found, s.stop_reason, s.actions, s.optimal_moves,
       s.efficiency, s.llm_calls, s.cost_usd, s.started_at, s.completed_at
FROM picked p
JOIN experiment_summary s ON s.experiment_id = p.id
ORDER BY s.started_at DESC, s.experiment_id`;

interface SweepRow {
  sweep: string;
  runs: number;
  done: number;
  succeeded: number;
  failed: number;
  started: Date;
}

// Each run counts once, by its latest attempt (as the sweep_runs view does), read from the experiments table alone.
// $2 rows in all, read in pages of $4 from offset $3 (see pagedList).
const SWEEPS_SQL = `
SELECT s.id AS sweep, s.cells * s.repeats AS runs, coalesce(r.done, 0) AS done,
       coalesce(r.succeeded, 0) AS succeeded, coalesce(r.failed, 0) AS failed, s.created_at AS started
FROM sweeps s
LEFT JOIN LATERAL (
  SELECT count(*) FILTER (WHERE status <> 'running') AS done, count(*) FILTER (WHERE goal_found) AS succeeded,
         count(*) FILTER (WHERE status = 'failed') AS failed
  FROM (SELECT DISTINCT ON (sweep_cell, sweep_repeat) status, goal_found FROM experiments
        WHERE sweep_id = s.id ORDER BY sweep_cell, sweep_repeat, sweep_attempt DESC) latest
) r ON true
WHERE ($1::text IS NULL OR s.id = $1)
ORDER BY s.created_at DESC, s.id
LIMIT least($2::int - $3::int, $4::int) OFFSET $3`;

/** Local time to the minute: when the researcher started it, as their clock read. */
function when(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` + `${pad(d.getHours())}:${pad(d.getMinutes())}`
  );
}

/** The filters given, for the line that says nothing matched them. */
function filtersOf(o: ListOptions): string {
  const given = [
    o.sweep !== undefined ? `--sweep ${o.sweep}` : '',
    o.status !== undefined ? `--status ${o.status}` : '',
    o.agent !== undefined ? `--agent ${o.agent}` : '',
  ].filter(Boolean);
  return given.length > 0 ? ` match ${given.join(' ')}` : '';
}

/**
 * The rows of a listing (its SQL limits them), in pages by offset (`read(offset, limit)`): --limit goes up to
 * 100,000 rows, more than the Data API's 1 MiB per response holds. The order is total (an id breaks ties), so
 * pages do not overlap.
 */
function pagedList<R>(read: (offset: number, limit: number) => Promise<R[]>): Promise<R[]> {
  let offset = 0;
  return readPaged<R>(async (_last, limit) => {
    const rows = await read(offset, limit);
    offset += rows.length;
    return rows;
  });
}

/** The first `limit` of rows fetched with one extra, and a note when that extra says there are more. */
function newest<T>(fetched: T[], limit: number): { rows: T[]; note: string } {
  const more = fetched.length > limit;
  return { rows: fetched.slice(0, limit), note: more ? `(showing the newest ${limit}; --limit <n> shows more)\n` : '' };
}

async function listSweeps(o: ListOptions): Promise<void> {
  for (const [option, value] of [
    ['--status', o.status],
    ['--agent', o.agent],
  ] as const)
    if (value !== undefined)
      throw new InvalidInputError(option, value, `${option} filters experiments; it does not go with --sweeps`);
  await withResultsDatabase(o, async (db) => {
    const fetched = await pagedList(
      async (offset, limit) =>
        (await db.query<SweepRow>(SWEEPS_SQL, [o.sweep ?? null, o.limit + 1, offset, limit])).rows,
    );
    const { rows, note } = newest(fetched, o.limit);
    if (o.json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return;
    }
    if (rows.length === 0) {
      const p = commandPrefix();
      const none =
        o.sweep === undefined ? 'yet;' : `match --sweep ${o.sweep}; see them all with: ${p} list --sweeps, or`;
      process.stdout.write(`no sweeps ${none} run one with: ${p} sweep examples/sweeps/example.yaml\n`);
      return;
    }
    const shown = rows.map((r) => ({ ...r, started: when(r.started) }));
    process.stdout.write(
      `${formatTable(shown, ['sweep', 'runs', 'done', 'succeeded', 'failed', 'started'], {
        right: ['runs', 'done', 'succeeded', 'failed'],
      })}\n${note}`,
    );
  });
}

async function list(o: ListOptions): Promise<void> {
  if (o.sweeps) return listSweeps(o);
  await withResultsDatabase(o, async (db) => {
    const fetched = await pagedList(
      async (offset, limit) =>
        (
          await db.query<ExperimentRow>(EXPERIMENTS_SQL, [
            o.sweep ?? null,
            o.status ?? null,
            o.agent ?? null,
            o.limit + 1,
            offset,
            limit,
          ])
        ).rows,
    );
    const { rows, note } = newest(fetched, o.limit);
    if (o.json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return;
    }
    if (rows.length === 0) {
      const filtered = filtersOf(o);
      const p = commandPrefix();
      process.stdout.write(
        `no experiments${filtered || ' yet'}; ${filtered ? `see them all with: ${p} list, or ` : ''}` +
          `run one with: ${p} run --agent frontier --maze medium --size 15\n`,
      );
      return;
    }
    const shown = rows.map((r) => ({
      id: r.experiment_id,
      'agent/model': r.model ? `${r.agent} ${r.model}` : r.agent,
      maze: `${r.maze_generator} ${r.maze_width}x${r.maze_height} s${r.maze_seed ?? '-'}`,
      status: r.status,
      actions: r.actions,
      efficiency: r.efficiency === null ? '-' : r.efficiency.toFixed(3),
      started: when(r.started_at),
    }));
    process.stdout.write(
      `${formatTable(shown, ['id', 'agent/model', 'maze', 'status', 'actions', 'efficiency', 'started'], {
        right: ['actions', 'efficiency'],
      })}\n${note}`,
    );
  });
}

export function registerListCommand(program: Command): void {
  const listCommand = addResultsSourceOptions(
    program
      .command('list')
      .description('list the stored experiments, newest first (or the sweeps, with --sweeps)')
      .option('--sweep <name>', 'only the runs of this sweep (with --sweeps: only this sweep)')
      .addOption(
        new Option('--status <status>', `only experiments with this status: ${STATUSES.join(', ')}`).argParser(
          choiceOption('--status', STATUSES),
        ),
      )
      .option('--agent <label>', 'only this agent: a baseline (random, frontier), a provider, a model or a sweep label')
      .addOption(
        new Option('--limit <n>', 'show at most this many, newest first')
          .default(20)
          .argParser(intOption('--limit', 1, 100_000)),
      )
      .option('--sweeps', 'list the sweeps instead: name, runs, done, succeeded, failed, started')
      .addOption(jsonOption('the rows as JSON')),
  ).action((o: ListOptions) => list(o));
  withExample(listCommand, 'ariadne list --status completed --agent frontier --limit 5');
}
