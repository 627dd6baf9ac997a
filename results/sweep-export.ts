// A sweep's experiments and actions as the export writes them, streamed in keyset pages (over either transport: a
// page that passes the Data API's 1 MiB is read again in halves), so a sweep of millions of actions does not sit in
// memory.
import type { Sql } from '../core/store/sql.ts';
import { pagesOf, readPaged, type PageSize } from '../core/store/pages.ts';

// deterministic, independent and duplicate_of (migration 007) say which runs are exact copies of another, so an
// analysis can count each observation once as the statistics views do. observation is the format the model was
// shown, from the config snapshot, whether swept or not (null for runs from before the setting existed, which
// saw rays with a JSON line). config is the whole resolved snapshot (every setting, varied or not), so an analysis
// can group by any factor without the database. simulated (a bundled simulator answered the run: never pool it with
// real runs) and prompt_truncated_calls (calls whose prompt the server cut to its window) are migration 029's.
const EXPERIMENTS_SQL = `SELECT r.sweep_id, r.cell_index, r.repeat, r.attempt, r.label, r.agent, r.model,
  r.maze_generator, r.maze_size, r.maze_seed, r.settings, e.config ->> 'observation' AS observation, e.config,
  r.deterministic, r.independent, r.duplicate_of, e.simulated, e.prompt_truncated_calls, s.*
  FROM sweep_runs r JOIN experiment_summary s USING (experiment_id) JOIN experiments e ON e.id = r.experiment_id
  WHERE r.sweep_id = $1 AND (r.cell_index, r.repeat) > ($2::int, $3::int) ORDER BY r.cell_index, r.repeat LIMIT $4`;
const COUNTS_SQL = `SELECT (SELECT count(*) FROM sweep_runs WHERE sweep_id = $1)::int AS experiments,
  (SELECT count(*) FROM actions a JOIN sweep_runs r USING (experiment_id) WHERE r.sweep_id = $1)::int AS actions`;
// The actions are read run by run in batches of the sweep's runs (RUN_IDS_SQL, by id), not by joining sweep_runs:
// that join made Postgres find and sort every action after the key for each page (130 ms a page of 2,500 with 20
// runs of 10,000 left; the whole export's reads grew with the square of its rows, and the Data API's smaller pages
// paid it twice as often). A batch is runs whose counted actions fill about one page, named by a JSON list (the
// Data API takes no array parameter), so a page reads and sorts about its own rows.
const RUN_IDS_SQL = `SELECT experiment_id, coalesce(actions, 0)::int AS actions FROM sweep_runs
  WHERE sweep_id = $1 AND experiment_id > $2 ORDER BY experiment_id LIMIT $3`;
const ACTIONS_SQL = `SELECT a.experiment_id, a.turn_number, a.call_index, a.step_number, a.tool, a.arguments,
  a.reasoning, a.executed, a.success, a.outcome, a.from_x, a.from_y, a.to_x, a.to_y, a.new_tiles_seen, a.goal_found
  FROM actions a
  WHERE a.experiment_id IN (SELECT jsonb_array_elements_text($1::jsonb))
    AND (a.experiment_id, a.turn_number, a.call_index) > ($2, $3, $4) AND a.experiment_id <= $6
  ORDER BY a.experiment_id, a.turn_number, a.call_index LIMIT $5`;

// First page sizes (halved while a page is too large): a run's row has some fifty columns, an action's sixteen.
const EXPERIMENT_PAGE_ROWS = 1000;
const ACTION_PAGE_ROWS = 5000;

/** The rows each file of a sweep's export will hold. */
export async function exportCounts(db: Sql, sweepId: string): Promise<{ experiments: number; actions: number }> {
  const { rows } = await db.query<{ experiments: number; actions: number }>(COUNTS_SQL, [sweepId]);
  return rows[0];
}

/** The key an experiments page ends at: the next page starts after it. */
interface RunKey {
  cell_index: number;
  repeat: number;
}

/** The key an actions page ends at: the next page starts after it. */
interface ActionKey {
  experiment_id: string;
  turn_number: number;
  call_index: number;
}

type ExportRow = Record<string, unknown>;

/** The sweep's runs (latest attempts) with their cells, config snapshots and summaries, by cell and repeat. */
export function exportedExperiments(db: Sql, sweepId: string): AsyncIterable<ExportRow[]> {
  return pagesOf<RunKey & ExportRow>(async (last, limit) => {
    const after = last ? [last.cell_index, last.repeat] : [-1, -1];
    return (await db.query<RunKey & ExportRow>(EXPERIMENTS_SQL, [sweepId, ...after, limit])).rows;
  }, EXPERIMENT_PAGE_ROWS);
}

/** Every action of the sweep's runs, by experiment, turn and call. */
export async function* exportedActions(db: Sql, sweepId: string): AsyncIterable<ExportRow[]> {
  const runs = await readPaged<{ experiment_id: string; actions: number }>(
    async (last, limit) =>
      (
        await db.query<{ experiment_id: string; actions: number }>(RUN_IDS_SQL, [
          sweepId,
          last?.experiment_id ?? '',
          limit,
        ])
      ).rows,
  );
  // one page size for every batch: a page halved for the Data API's 1 MiB stays halved for the batches after
  const size: PageSize = { rows: ACTION_PAGE_ROWS };
  for (let next = 0; next < runs.length;) {
    // the runs from `next` whose actions fill a page (at least one run), read in keyset pages of their own
    let end = next;
    for (let counted = 0; end < runs.length && (end === next || counted < size.rows); end++)
      counted += runs[end].actions;
    const ids = runs.slice(next, end).map((r) => r.experiment_id);
    // the batch's last id bounds the index scan: another sweep's runs with ids between are not walked past
    const [batch, lastId] = [JSON.stringify(ids), ids[ids.length - 1]];
    yield* pagesOf<ActionKey & ExportRow>(async (last, limit) => {
      // a batch's first page starts at its first run: from '' the index scan walked every earlier run's actions
      const after = last ? [last.experiment_id, last.turn_number, last.call_index] : [ids[0], -1, -1];
      return (await db.query<ActionKey & ExportRow>(ACTIONS_SQL, [batch, ...after, limit, lastId])).rows;
    }, size);
    next = end;
  }
}
