// What the behaviour analytics (reports/behaviour.ts) read of runs: each run's maze, vision and outcome, and its
// executed actions in step order packed small (where each ended, what kind of action it was, the new tiles it saw),
// in chunks of steps so a row stays under the Data API's 64 KB and a page under its 1 MiB: a finished run's as
// finalize packed them (run_traces), a running run's from its actions; a sweep cell's finished runs for the heatmap.
// Mazes come from the store (core/store/pg-store.ts loadMaze, checked by their hash).
import type { Sql } from '../core/store/sql.ts';
import { PgStore } from '../core/store/pg-store.ts';
import type { Maze } from '../core/maze/maze.ts';
import { readPaged } from '../core/store/pages.ts';

/** The kinds of executed action the analytics tell apart: a move taken, a move refused, anything else. */
const ACTION_KINDS = ['moved', 'blocked_by_wall', 'blocked_by_edge', 'other'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/**
 * A run's executed actions, one entry a step (step s at index s - 1): `codes` packs the kind (its index in
 * ACTION_KINDS) and the cell the action left the agent in as kind * 2^20 + y * 1024 + x (mazes are at most 201
 * wide); `tiles` is the action's new_tiles_seen.
 */
export interface RunTrace {
  codes: Int32Array | readonly number[];
  tiles: Int32Array | readonly number[];
}

/** One packed action (see RunTrace), for callers that build a trace. */
export const packAction = (kind: ActionKind, x: number, y: number): number =>
  ACTION_KINDS.indexOf(kind) * 1_048_576 + y * 1024 + x;
export const kindOf = (code: number): ActionKind => ACTION_KINDS[code >> 20];
export const xOf = (code: number): number => code & 1023;
export const yOf = (code: number): number => (code >> 10) & 1023;

/** A run as the analytics read it: its maze, what it saw with (vision), how it ended. */
export interface BehaviourRunRow {
  experiment_id: string;
  maze_id: number;
  goal_found: boolean;
  /** Its status is not running: it ended (any way). */
  ended: boolean;
  vision_range: number;
  see_through: boolean;
  success_rule: string;
}

/** Each run of `ids` (in id order) with its maze, vision and outcome; runs that do not exist are left out. */
export function behaviourRunRows(db: Sql, ids: readonly string[]): Promise<BehaviourRunRow[]> {
  return readPaged<BehaviourRunRow>(
    async (last, limit) =>
      (
        await db.query<BehaviourRunRow>(
          `SELECT id AS experiment_id, maze_id, goal_found, status <> 'running' AS ended,
             (config ->> 'vision_range')::int AS vision_range, (config ->> 'see_through')::boolean AS see_through,
             config ->> 'success_rule' AS success_rule
           FROM experiments WHERE id = ANY($1::text[]) AND id > $2 ORDER BY id LIMIT $3`,
          [ids, last?.experiment_id ?? '', limit],
        )
      ).rows,
  );
}

interface TraceChunk {
  experiment_id: string;
  chunk: number;
  /** Per action, 10 bytes big-endian: its code (int4, see RunTrace), new tiles (int2), step number (int4). */
  actions: Buffer;
}

/** Bytes an action takes in a TraceChunk. */
const ACTION_BYTES = 10;

/** The chunks of a page: 20 KB each (27 KB as the Data API's base64), 30 stay under its 1 MiB; pg reads at once. */
const pageChunks = (db: Sql) => (db.transport === 'pg' ? 2 ** 31 - 1 : 30);

/**
 * The packed chunks of the runs of `ids` (migration 035): `run_traces`, as finalize stored a finished run's, or
 * `run_trace_chunks`, the same packed from a run's actions as they stand (a running run's).
 */
function traceChunks(db: Sql, from: 'run_traces' | 'run_trace_chunks', ids: readonly string[]): Promise<TraceChunk[]> {
  return readPaged<TraceChunk>(
    async (last, limit) =>
      (
        await db.query<TraceChunk>(
          `SELECT experiment_id, chunk, actions FROM ${from}
           WHERE experiment_id = ANY($1::text[]) AND (experiment_id, chunk) > ($2::text, $3::int)
           ORDER BY experiment_id, chunk LIMIT $4`,
          [ids, last?.experiment_id ?? '', last?.chunk ?? -1, limit],
        )
      ).rows,
    pageChunks(db),
  );
}

/**
 * The executed actions of each run of `ids`, packed (RunTrace); a run with none has an empty trace. Each chunk's
 * actions come in no particular order, each placed by its step number.
 */
export async function runTraces(db: Sql, ids: readonly string[]): Promise<Map<string, RunTrace>> {
  const packed = await traceChunks(db, 'run_traces', ids);
  const have = new Set(packed.map((c) => c.experiment_id));
  const rest = ids.filter((id) => !have.has(id));
  const chunks = rest.length > 0 ? [...packed, ...(await traceChunks(db, 'run_trace_chunks', rest))] : packed;
  const byRun = new Map<string, Buffer[]>(ids.map((id) => [id, []]));
  for (const c of chunks) byRun.get(c.experiment_id)!.push(c.actions);
  return new Map([...byRun].map(([id, parts]) => [id, unpacked(parts)]));
}

/** A run's chunks as its trace: steps 1..n, each action put at its step (typed arrays: a long sweep is millions). */
function unpacked(parts: Buffer[]): RunTrace {
  const n = parts.reduce((sum, b) => sum + b.length / ACTION_BYTES, 0);
  const [codes, tiles] = [new Int32Array(n), new Int32Array(n)];
  for (const b of parts)
    for (let at = 0; at < b.length; at += ACTION_BYTES) {
      const step = b.readInt32BE(at + 6);
      codes[step - 1] = b.readInt32BE(at);
      tiles[step - 1] = b.readInt16BE(at + 4);
    }
  return { codes, tiles };
}

/** Each maze of `ids` as the store reads it (its cells checked against its hash), read once each. */
export async function mazesById(db: Sql, ids: readonly number[]): Promise<Map<number, Maze>> {
  const store = new PgStore(db);
  const unique = [...new Set(ids)];
  const mazes = await Promise.all(unique.map((id) => store.loadMaze(id)));
  return new Map(unique.map((id, i) => [id, mazes[i]]));
}

/** The runs of one cell of a sweep that ended as a success or a failure (latest attempts), by repeat. */
export async function finishedCellRuns(
  db: Sql,
  sweepId: string,
  cell: number,
): Promise<Array<{ experiment_id: string; repeat: number }>> {
  const { rows } = await db.query<{ experiment_id: string; repeat: number }>(
    `SELECT experiment_id, repeat FROM sweep_runs
     WHERE sweep_id = $1 AND cell_index = $2 AND outcome_class IN ('success', 'failure') ORDER BY repeat`,
    [sweepId, cell],
  );
  return rows;
}
