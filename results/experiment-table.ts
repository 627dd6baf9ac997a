// The viewer's experiments table: one row per experiment, filtered and sorted in SQL and read a page at a time. It
// reads the experiments, mazes and sweep cells, and the turns' token and cost sums, never the actions: the row
// already counts them (actions_taken), so the list costs the same with a thousand actions or a million.
import type { Sql, SqlValue } from '../core/store/sql.ts';
import { staleReason } from './live-status.ts';
import { INTERRUPTED_SQL } from './interrupted.ts';
import { settingsOfRuns, settingsText, type RunSettings } from './run-settings.ts';

/** Sortable columns, by the name a URL uses, and the SQL each sorts by. */
const SORTS = {
  started: 'e.started_at',
  updated: 'e.updated_at',
  id: 'e.id',
  sweep: 'e.sweep_id',
  label: 'c.label',
  agent: 'e.agent',
  model: 'e.model',
  maze: 'm.generator',
  size: 'm.width',
  seed: 'm.seed',
  status: 'e.status',
  outcome: 'e.goal_found',
  stop: 'e.stop_reason',
  actions: 'e.actions_taken',
  optimal: 'e.optimal_moves',
  efficiency: 'efficiency',
  turns: 'e.turns_completed',
  tiles: 'e.tiles_seen',
  tokens: 'tokens',
  cost: 'cost_usd',
} as const;

export type ExperimentSort = keyof typeof SORTS;
export const EXPERIMENT_SORTS = Object.keys(SORTS) as [ExperimentSort, ...ExperimentSort[]];

export interface ExperimentTableQuery {
  sweep?: string;
  /** A model, an agent or a sweep label. */
  model?: string;
  /** generator, generator:size or generator:size:seed */
  maze?: string;
  status?: string;
  outcome?: 'success' | 'failure' | 'unfinished';
  sort: ExperimentSort;
  dir: 'asc' | 'desc';
  limit: number;
  offset: number;
}

interface ExperimentTableRow {
  experiment_id: string;
  sweep_id: string | null;
  label: string | null;
  agent: string;
  model: string | null;
  maze_generator: string;
  maze_size: number;
  maze_seed: number | null;
  maze_hash: string;
  status: string;
  goal_found: boolean;
  stop_reason: string | null;
  failure_reason: string | null;
  actions: number;
  optimal_moves: number;
  efficiency: number | null;
  turns: number;
  tiles_seen: number;
  tokens: number | null;
  cost_usd: number | null;
  started_at: string;
  updated_at: string;
  /** Why a running experiment looks stuck (no turn for longer than a turn may take), else null. */
  stale: string | null;
  /** How and when a running experiment was interrupted on purpose (Ctrl-C, SIGTERM), else null: resumable. */
  interrupted: string | null;
  /** A bundled simulator answered some of its model calls (migration 029). */
  simulated: boolean;
  /** Agent human: who played (migration 034), else null. */
  player: string | null;
  /** The run it replays, the run it was forked from and after which step (migration 031), else null. */
  replay_of: string | null;
  forked_from: string | null;
  fork_step: number | null;
  /** Filtered by sweep, the settings it varies; else those that differ from the defaults (run-settings.ts). */
  settings: RunSettings;
  /** The same as key=value text. */
  settings_text: string;
}

export interface ExperimentTable {
  total: number;
  rows: ExperimentTableRow[];
  /** Values the filters can take, from the whole table. */
  choices: { sweeps: string[]; models: string[]; mazes: string[] };
}

type Row = Omit<ExperimentTableRow, 'stale' | 'settings' | 'settings_text'> & { total: number };

export async function experimentTable(db: Sql, q: ExperimentTableQuery, now: Date): Promise<ExperimentTable> {
  const [list, choices] = await Promise.all([db.query<Row>(listSql(q), listValues(q)), filterChoices(db)]);
  const settings = await settingsOfRuns(
    db,
    list.rows.map((r) => r.experiment_id),
    q.sweep,
  );
  return {
    total: list.rows[0]?.total ?? (q.offset > 0 ? await countOnly(db, q) : 0),
    rows: list.rows.map(({ total: _total, ...r }) => {
      const s = settings.get(r.experiment_id) ?? {};
      return {
        ...r,
        stale: r.status === 'running' && !r.interrupted ? staleReason(new Date(r.updated_at), now) : null,
        settings: s,
        settings_text: settingsText(s),
      };
    }),
    choices,
  };
}

/** The list's filters, in the order listSql reads them ($1 to $9). */
function listValues(q: ExperimentTableQuery): SqlValue[] {
  const [generator, size, seed] = q.maze?.split(':') ?? [];
  return [
    q.sweep ?? null,
    q.model ?? null,
    generator ?? null,
    size === undefined ? null : Number(size),
    seed ?? null,
    q.status ?? null,
    q.outcome ?? null,
    q.limit,
    q.offset,
  ];
}

/** One page of the runs, filtered and sorted, each with what it spent and the count of all that match. */
function listSql(q: ExperimentTableQuery): string {
  // the sort column comes from SORTS (a fixed list), never from the request's text
  const order = `${SORTS[q.sort]} ${q.dir === 'asc' ? 'ASC' : 'DESC'} NULLS LAST, e.id`;
  return (
    // what the runs spent, from their kept totals (migration 017): tokens null when none were reported, cost
    // unknown (null) when a turn called a model without a price; a baseline's turns, or none, cost nothing
    `WITH spent AS (
         SELECT experiment_id,
                CASE WHEN input_tokens IS NOT NULL THEN (input_tokens + coalesce(output_tokens, 0))::float8 END
                  AS tokens,
                CASE WHEN cost_known THEN coalesce(cost_usd, 0) END::float8 AS cost_usd
         FROM experiment_totals
       )
       SELECT e.id AS experiment_id, e.sweep_id, c.label, e.agent, e.model, m.generator AS maze_generator,
              m.width AS maze_size, m.seed::float8 AS maze_seed, m.content_hash AS maze_hash, e.status, e.goal_found,
              e.stop_reason, e.failure_reason, e.actions_taken AS actions, e.optimal_moves,
              CASE WHEN e.goal_found AND e.actions_taken > 0
                   THEN round(e.optimal_moves::numeric / e.actions_taken, 4)::float8 END AS efficiency,
              e.turns_completed AS turns, e.tiles_seen,
              s.tokens,
              CASE WHEN s.experiment_id IS NULL THEN 0 ELSE s.cost_usd END AS cost_usd,
              to_char(e.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS started_at,
              to_char(e.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at,
              ${INTERRUPTED_SQL} AS interrupted, e.simulated, e.player, e.replay_of, e.forked_from, e.fork_step,
              count(*) OVER ()::int AS total
       FROM experiments e
       JOIN mazes m ON m.id = e.maze_id
       LEFT JOIN sweep_cells c ON c.sweep_id = e.sweep_id AND c.cell_index = e.sweep_cell
       LEFT JOIN spent s ON s.experiment_id = e.id
       WHERE ($1::text IS NULL OR e.sweep_id = $1)
         AND ($2::text IS NULL OR $2 IN (e.model, e.agent, c.label, e.player))
         AND ($3::text IS NULL OR m.generator = $3)
         AND ($4::int IS NULL OR m.width = $4)
         AND ($5::bigint IS NULL OR m.seed = $5::bigint)
         AND ($6::text IS NULL OR e.status = $6)
         AND ($7::text IS NULL
              OR ($7 = 'success' AND e.goal_found)
              OR ($7 = 'failure' AND NOT e.goal_found AND e.status <> 'running')
              OR ($7 = 'unfinished' AND e.status = 'running'))
       ORDER BY ${order}
       LIMIT $8 OFFSET $9`
  );
}

/** What the filters offer: every sweep, model (or agent) and maze kind there is. */
async function filterChoices(db: Sql): Promise<ExperimentTable['choices']> {
  const choices = await db.query<{ kind: string; value: string }>(
    `SELECT DISTINCT 'sweep' AS kind, sweep_id AS value FROM experiments WHERE sweep_id IS NOT NULL
     UNION SELECT DISTINCT 'model', coalesce(model, agent) FROM experiments
     UNION SELECT DISTINCT 'maze', generator || ':' || width FROM mazes
     ORDER BY 1, 2`,
    [],
    { name: 'viewer-list-choices' },
  );
  const pick = (kind: string) => choices.rows.filter((r) => r.kind === kind).map((r) => r.value);
  return { sweeps: pick('sweep'), models: pick('model'), mazes: pick('maze') };
}

/** A page past the end has no row to carry the total: ask for the first row's. */
async function countOnly(db: Sql, q: ExperimentTableQuery): Promise<number> {
  return (await experimentTable(db, { ...q, offset: 0, limit: 1 }, new Date())).total;
}
