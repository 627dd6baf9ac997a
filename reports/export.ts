// A sweep's experiments and actions as CSV, JSON Lines or Parquet, for pandas, R, DuckDB.
// Streams from Postgres in keyset pages (over either transport: a page that
// passes the Data API's 1 MiB is read again in halves), so a sweep of millions
// of actions does not sit in memory. CSV quoting per RFC 4180; JSON columns
// stay JSON text.
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import type { Sql } from '../lambdas/store/sql.ts';
import { pagesOf } from '../lambdas/store/pages.ts';
import { writeParquet } from './parquet-rows.ts';

export type ExportFormat = 'csv' | 'jsonl' | 'parquet';

/** Rows written so far of one file, and how many it will hold. */
export interface ExportProgress {
  table: 'experiments' | 'actions';
  rows: number;
  total: number;
}

// deterministic, independent and duplicate_of (migration 007) say which runs are exact copies of another, so an
// analysis can count each observation once as the statistics views do. observation is the format the model was
// shown, from the config snapshot, whether swept or not (null for runs from before the setting existed, which
// saw rays with a JSON line). config is the whole resolved snapshot (every setting, varied or not), so an analysis
// can group by any factor without the database.
const EXPERIMENTS_SQL = `SELECT r.sweep_id, r.cell_index, r.repeat, r.attempt, r.label, r.agent, r.model,
  r.maze_generator, r.maze_size, r.maze_seed, r.settings, e.config ->> 'observation' AS observation, e.config,
  r.deterministic, r.independent, r.duplicate_of, s.*
  FROM sweep_runs r JOIN experiment_summary s USING (experiment_id) JOIN experiments e ON e.id = r.experiment_id
  WHERE r.sweep_id = $1 AND (r.cell_index, r.repeat) > ($2::int, $3::int) ORDER BY r.cell_index, r.repeat LIMIT $4`;
const COUNTS_SQL = `SELECT (SELECT count(*) FROM sweep_runs WHERE sweep_id = $1)::int AS experiments,
  (SELECT count(*) FROM actions a JOIN sweep_runs r USING (experiment_id) WHERE r.sweep_id = $1)::int AS actions`;
const ACTIONS_SQL = `SELECT a.experiment_id, a.turn_number, a.call_index, a.step_number, a.tool, a.arguments,
  a.reasoning, a.executed, a.success, a.outcome, a.from_x, a.from_y, a.to_x, a.to_y, a.new_tiles_seen, a.goal_found
  FROM actions a JOIN sweep_runs r USING (experiment_id)
  WHERE r.sweep_id = $1 AND (a.experiment_id, a.turn_number, a.call_index) > ($2, $3, $4)
  ORDER BY a.experiment_id, a.turn_number, a.call_index LIMIT $5`;

// First page sizes (halved while a page is too large): a run's row has some fifty columns, an action's sixteen.
const EXPERIMENT_PAGE_ROWS = 1000;
const ACTION_PAGE_ROWS = 5000;

function csvValue(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s: string;
  if (v instanceof Date) s = v.toISOString();
  else if (typeof v === 'string') s = v;
  else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') s = String(v);
  else s = JSON.stringify(v); // objects and arrays (jsonb, text[]); a row holds nothing else
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

async function writeRows(
  file: string,
  format: ExportFormat,
  pages: AsyncIterable<Array<Record<string, unknown>>>,
): Promise<number> {
  if (format === 'parquet') return writeParquet(file, pages);
  const out = createWriteStream(file);
  let n = 0;
  let columns: string[] | null = null;
  for await (const rows of pages) {
    for (const row of rows) {
      let line: string;
      if (format === 'jsonl') line = `${JSON.stringify(row)}\n`;
      else {
        if (!columns) {
          columns = Object.keys(row);
          if (!out.write(`${columns.join(',')}\n`)) await once(out, 'drain');
        }
        line = `${columns.map((c) => csvValue(row[c])).join(',')}\n`;
      }
      n++;
      if (!out.write(line)) await once(out, 'drain');
    }
  }
  out.end();
  await once(out, 'finish');
  return n;
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

export async function exportSweep(
  db: Sql,
  sweepId: string,
  format: ExportFormat,
  dir: string,
  onProgress?: (p: ExportProgress) => void,
): Promise<Array<{ file: string; rows: number }>> {
  mkdirSync(dir, { recursive: true });
  const { rows: counts } = await db.query<{ experiments: number; actions: number }>(COUNTS_SQL, [sweepId]);
  /** The pages as they pass, counted for the progress line. */
  async function* counted<T>(table: ExportProgress['table'], pages: AsyncIterable<T[]>) {
    let rows = 0;
    for await (const page of pages) {
      yield page;
      rows += page.length;
      onProgress?.({ table, rows, total: counts[0][table] });
    }
  }
  const experimentsFile = join(dir, `${sweepId}-experiments.${format}`);
  const actionsFile = join(dir, `${sweepId}-actions.${format}`);
  const experiments = await writeRows(
    experimentsFile,
    format,
    counted(
      'experiments',
      pagesOf<RunKey & Record<string, unknown>>(async (last, limit) => {
        const after = last ? [last.cell_index, last.repeat] : [-1, -1];
        return (await db.query<RunKey & Record<string, unknown>>(EXPERIMENTS_SQL, [sweepId, ...after, limit])).rows;
      }, EXPERIMENT_PAGE_ROWS),
    ),
  );
  const actions = await writeRows(
    actionsFile,
    format,
    counted(
      'actions',
      pagesOf<ActionKey & Record<string, unknown>>(async (last, limit) => {
        const after = last ? [last.experiment_id, last.turn_number, last.call_index] : ['', 0, -1];
        return (await db.query<ActionKey & Record<string, unknown>>(ACTIONS_SQL, [sweepId, ...after, limit])).rows;
      }, ACTION_PAGE_ROWS),
    ),
  );
  return [
    { file: experimentsFile, rows: experiments },
    { file: actionsFile, rows: actions },
  ];
}
