// What the open-format exports read (reports/inspect-log.ts, reports/otlp-traces.ts): a sweep's runs (the latest
// attempt of each, as its statistics count them) or one run, with its maze, summary and config; then, a run at a
// time, its turns, model calls, actions and recorded requests and replies, in keyset pages (a long run passes the
// Data API's 1 MiB a response); and what its numbers rest on: a simulator, replayed or cached answers, cut prompts,
// calls its failed turns abandoned (migrations 028, 029, 031).
import type { Sql } from '../core/store/sql.ts';
import { pagesOf, readPaged } from '../core/store/pages.ts';
import { readBodies } from '../core/store/model-bodies-sql.ts';
import { exchangeRows } from './recorded-run.ts';
import type { RequestManifest } from '../core/providers/llm/model-request.ts';

/** One run as the exports describe it. */
export interface ExportedRun {
  experiment_id: string;
  sweep_id: string | null;
  cell_index: number | null;
  /** The sweep repeat (1-based); null for a run outside a sweep. */
  repeat: number | null;
  attempt: number | null;
  /** The agent's label in its sweep (the model, else the agent); the agent outside a sweep. */
  label: string;
  agent: string;
  provider: string;
  model: string | null;
  prompt_version: string | null;
  /** The cell's settings as the sweep file gave them ({} outside a sweep). */
  settings: Record<string, unknown>;
  status: string;
  goal_found: boolean;
  stop_reason: string | null;
  failure_reason: string | null;
  /** success, failure, error, wall_clock or running (sweep_runs' classes; the same rule outside a sweep). */
  outcome_class: string;
  /** Counted once by the statistics (null outside a sweep). */
  independent: boolean | null;
  duplicate_of: string | null;
  actions: number;
  optimal_moves: number;
  /** optimal / actions for a success, unrounded; null otherwise. */
  efficiency: number | null;
  turns: number;
  tiles_seen: number;
  llm_calls: number;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  started_at: Date;
  completed_at: Date | null;
  wall_seconds: number;
  maze_generator: string;
  maze_width: number;
  maze_height: number;
  maze_seed: number | null;
  maze_hash: string;
  start_x: number;
  start_y: number;
  goal_x: number;
  goal_y: number;
  config: Record<string, unknown>;
  agent_seed: number | null;
  /** Any call answered by a bundled simulator (it announced itself). */
  simulated: boolean;
  /** Calls whose prompt the server cut to its context window. */
  prompt_truncated_calls: number;
  /** Calls answered in a try of a turn that then failed: in the run's tokens and cost, in no turn. */
  abandoned_calls: number;
  /** Model requests the flight recorder kept, those a recorded run answered (replay, fork) and the cache's. */
  recorded_requests: number;
  replayed_requests: number;
  cached_requests: number;
  replay_of: string | null;
  forked_from: string | null;
  fork_step: number | null;
}

/** Every model request answered by the cache (config.cache): answers already counted, as sweep_runs' from_cache. */
export const fromCache = (run: ExportedRun): boolean =>
  run.recorded_requests > 0 && run.cached_requests === run.recorded_requests;

// The run's columns over experiments e, experiment_summary s and mazes m; the sweep's (cell, repeat, label, settings,
// outcome class, copies) come from sweep_runs r and sweep_cells c where the run has them.
const RUN_COLUMNS = `e.id AS experiment_id, e.sweep_id, e.sweep_cell AS cell_index, e.sweep_repeat AS repeat,
  e.sweep_attempt AS attempt, coalesce(c.label, e.agent) AS label, e.agent, e.provider, e.model, e.prompt_version,
  coalesce(c.settings, '{}'::jsonb) AS settings, s.status, s.goal_found, s.stop_reason, s.failure_reason,
  coalesce(r.outcome_class, CASE WHEN e.status = 'running' THEN 'running' WHEN e.status = 'failed' THEN 'error'
    WHEN e.goal_found THEN 'success' WHEN e.status = 'timeout' AND e.stop_reason = 'max_duration' THEN 'wall_clock'
    ELSE 'failure' END) AS outcome_class,
  r.independent, r.duplicate_of, s.actions, s.optimal_moves,
  CASE WHEN s.goal_found AND s.actions > 0 THEN s.optimal_moves::float8 / s.actions END AS efficiency,
  s.turns, s.tiles_seen, s.llm_calls, s.input_tokens, s.output_tokens, s.cost_usd::float8 AS cost_usd,
  s.started_at, s.completed_at, s.wall_seconds::float8 AS wall_seconds,
  m.generator AS maze_generator, m.width AS maze_width, m.height AS maze_height, m.seed AS maze_seed,
  m.content_hash AS maze_hash, m.start_x, m.start_y, m.goal_x, m.goal_y, e.config, e.agent_seed, e.simulated,
  e.prompt_truncated_calls, e.replay_of, e.forked_from, e.fork_step, x.recorded_requests, x.replayed_requests,
  x.cached_requests, (SELECT count(*)::int FROM abandoned_llm_calls a WHERE a.experiment_id = e.id) AS abandoned_calls`;

const RUN_FROM = `FROM experiments e JOIN experiment_summary s ON s.experiment_id = e.id
  JOIN mazes m ON m.id = e.maze_id
  LEFT JOIN sweep_cells c ON c.sweep_id = e.sweep_id AND c.cell_index = e.sweep_cell
  CROSS JOIN LATERAL (SELECT count(*)::int AS recorded_requests,
      (count(*) FILTER (WHERE answered_by = 'replay'))::int AS replayed_requests,
      (count(*) FILTER (WHERE answered_by = 'cache'))::int AS cached_requests
    FROM model_exchanges WHERE experiment_id = e.id) x`;

const SWEEP_RUNS_SQL = `SELECT ${RUN_COLUMNS} ${RUN_FROM}
  JOIN sweep_runs r ON r.experiment_id = e.id
  WHERE r.sweep_id = $1 AND (r.cell_index, r.repeat) > ($2::int, $3::int) ORDER BY r.cell_index, r.repeat LIMIT $4`;

// A run's latest sweep_runs row, if it is the latest attempt of a sweep run (an earlier attempt has none)
const ONE_RUN_SQL = `SELECT ${RUN_COLUMNS} ${RUN_FROM}
  LEFT JOIN sweep_runs r ON r.experiment_id = e.id AND r.sweep_id = e.sweep_id
  WHERE e.id = $1`;

/** Runs a page asks for: a run's row carries its config snapshot (a few KB). */
const RUN_PAGE_ROWS = 200;

/** The sweep's runs, by cell and repeat, in pages. */
function exportedRuns(db: Sql, sweepId: string): AsyncIterable<ExportedRun[]> {
  return pagesOf<ExportedRun>(async (last, limit) => {
    const after = last ? [last.cell_index!, last.repeat!] : [-1, -1];
    return (await db.query<ExportedRun>(SWEEP_RUNS_SQL, [sweepId, ...after, limit])).rows;
  }, RUN_PAGE_ROWS);
}

/** The runs a sweep's export holds. */
async function exportedRunCount(db: Sql, sweepId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM sweep_runs WHERE sweep_id = $1', [
    sweepId,
  ]);
  return rows[0].n;
}

/** One run; null when there is no such experiment. */
export async function exportedRun(db: Sql, experimentId: string): Promise<ExportedRun | null> {
  const { rows } = await db.query<ExportedRun>(ONE_RUN_SQL, [experimentId]);
  return rows[0] ?? null;
}

/** What to export: a sweep by name, or one run by experiment id. */
export type ExportSource = { sweep: string } | { run: string };

/** The runs of a sweep (in pages), or the one run (none when there is no such experiment). */
export async function* runsOfSource(db: Sql, source: ExportSource): AsyncIterable<ExportedRun[]> {
  if ('sweep' in source) yield* exportedRuns(db, source.sweep);
  else {
    const run = await exportedRun(db, source.run);
    if (run) yield [run];
  }
}

/** How many runs the export of `source` holds. */
export async function sourceRunCount(db: Sql, source: ExportSource): Promise<number> {
  return 'sweep' in source ? exportedRunCount(db, source.sweep) : 1;
}

/** The sweep's name, when and how it was made, for the log's header. */
export interface ExportedSweep {
  id: string;
  created_at: Date;
  repeats: number;
  description: string | null;
  /** The maze suite it ran (suite: in the sweep file), if any. */
  suite: string | null;
}

export async function exportedSweep(db: Sql, sweepId: string): Promise<ExportedSweep | null> {
  const { rows } = await db.query<ExportedSweep>(
    `SELECT id, created_at, repeats, spec ->> 'description' AS description,
       spec ->> 'suite' AS suite
     FROM sweeps WHERE id = $1`,
    [sweepId],
  );
  return rows[0] ?? null;
}

export interface ExportedTurn {
  turn_number: number;
  started_at: Date;
  ended_at: Date;
  stop_reason: string;
  actions_executed: number;
  llm_calls: number;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  latency_ms: number;
  goal_found: boolean;
}

export interface ExportedCall {
  turn_number: number;
  call_index: number;
  first_action_index: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_input_tokens: number | null;
  cache_write_input_tokens: number | null;
  /** As the provider reported them apart (OpenAI-compatible servers); null where it did not. */
  reported_reasoning_tokens: number | null;
  latency_ms: number;
  stop_reason: string | null;
  assistant_text: string | null;
  /** The waits before the reply: [{attempt, status, error, delay_ms}]. */
  retries: Array<{ delay_ms?: number }>;
  /** The reply cut by its output cap. */
  truncated: boolean | null;
  /** The prompt cut to the server's context window; null where unknown. */
  prompt_truncated: boolean | null;
  simulator: string | null;
  /** Who answered its requests (model, replay, cache; several joined by commas); null before the recorder. */
  answered_by: string | null;
}

/** A call answered in a try of a turn that then failed (abandoned_llm_calls): counted, in no turn. */
export interface AbandonedCall {
  turn_number: number;
  attempt: string;
  call_index: number;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_input_tokens: number | null;
  cache_write_input_tokens: number | null;
  reported_reasoning_tokens: number | null;
  cost_usd: number | null;
  latency_ms: number;
  stop_reason: string | null;
  /** What ended the try. */
  error: string | null;
  recorded_at: Date;
}

export interface ExportedAction {
  turn_number: number;
  call_index: number;
  tool: string;
  arguments: unknown;
  executed: boolean;
  success: boolean | null;
  outcome: string | null;
  message: string | null;
}

/** A run's turns, model calls and actions, each in order, and the calls its failed turns abandoned. */
export async function runTimeline(
  db: Sql,
  experimentId: string,
): Promise<{ turns: ExportedTurn[]; calls: ExportedCall[]; actions: ExportedAction[]; abandoned: AbandonedCall[] }> {
  const turns = readPaged<ExportedTurn>(
    async (last, limit) =>
      (
        await db.query<ExportedTurn>(
          `SELECT turn_number, started_at, ended_at, stop_reason, actions_executed, llm_calls, input_tokens,
             output_tokens, cost_usd::float8 AS cost_usd, latency_ms, goal_found
           FROM turns WHERE experiment_id = $1 AND turn_number > $2 ORDER BY turn_number LIMIT $3`,
          [experimentId, last?.turn_number ?? 0, limit],
        )
      ).rows,
  );
  type Keyed = { turn_number: number; call_index: number };
  const after = (last: Keyed | undefined) => [last?.turn_number ?? 0, last?.call_index ?? -1];
  const calls = readPaged<ExportedCall>(
    async (last, limit) =>
      (
        await db.query<ExportedCall>(
          `SELECT turn_number, call_index, first_action_index, input_tokens, output_tokens, cache_read_input_tokens,
             cache_write_input_tokens, reported_reasoning_tokens, latency_ms, stop_reason, assistant_text, retries,
             truncated, prompt_truncated, simulator,
             (SELECT string_agg(DISTINCT x.answered_by, ',' ORDER BY x.answered_by) FROM model_exchanges x
              WHERE x.experiment_id = l.experiment_id AND (x.turn_number, x.call_index) = (l.turn_number, l.call_index))
               AS answered_by
           FROM llm_calls l WHERE experiment_id = $1 AND (turn_number, call_index) > ($2, $3)
           ORDER BY turn_number, call_index LIMIT $4`,
          [experimentId, ...after(last), limit],
        )
      ).rows,
  );
  const actions = readPaged<ExportedAction>(
    async (last, limit) =>
      (
        await db.query<ExportedAction>(
          `SELECT turn_number, call_index, tool, arguments, executed, success, outcome, message
           FROM actions WHERE experiment_id = $1 AND (turn_number, call_index) > ($2, $3)
           ORDER BY turn_number, call_index LIMIT $4`,
          [experimentId, ...after(last), limit],
        )
      ).rows,
  );
  const [t, c, a, x] = await Promise.all([turns, calls, actions, abandonedCalls(db, experimentId)]);
  return { turns: t, calls: c, actions: a, abandoned: x };
}

/** The run's abandoned calls by turn, try and order in it (each carries when it was written). */
function abandonedCalls(db: Sql, experimentId: string): Promise<AbandonedCall[]> {
  return readPaged<AbandonedCall>(
    async (last, limit) =>
      (
        await db.query<AbandonedCall>(
          `SELECT turn_number, attempt, call_index, input_tokens, output_tokens, cache_read_input_tokens,
             cache_write_input_tokens, reported_reasoning_tokens, cost_usd::float8 AS cost_usd, latency_ms,
             stop_reason, error, recorded_at
           FROM abandoned_llm_calls WHERE experiment_id = $1 AND (turn_number, attempt, call_index) > ($2, $3, $4)
           ORDER BY turn_number, attempt, call_index LIMIT $5`,
          [experimentId, last?.turn_number ?? -1, last?.attempt ?? '', last?.call_index ?? -1, limit],
        )
      ).rows,
  );
}

/** A run's token counts per model, over every answered call: committed and abandoned (migration 028). */
export interface RunUsage {
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_input_tokens: number | null;
  cache_write_input_tokens: number | null;
  reasoning_tokens: number | null;
}

export async function runUsage(db: Sql, experimentId: string): Promise<RunUsage> {
  const { rows } = await db.query<RunUsage>(
    `SELECT sum(input_tokens)::float8 AS input_tokens, sum(output_tokens)::float8 AS output_tokens,
       sum(cache_read)::float8 AS cache_read_input_tokens, sum(cache_write)::float8 AS cache_write_input_tokens,
       sum(reasoning)::float8 AS reasoning_tokens
     FROM (SELECT input_tokens, output_tokens, cache_read_input_tokens AS cache_read,
             cache_write_input_tokens AS cache_write, reported_reasoning_tokens AS reasoning
           FROM llm_calls WHERE experiment_id = $1
           UNION ALL
           SELECT input_tokens, output_tokens, cache_read_input_tokens, cache_write_input_tokens,
             reported_reasoning_tokens
           FROM abandoned_llm_calls WHERE experiment_id = $1) calls`,
    [experimentId],
  );
  return rows[0];
}

/** One model request of a run as the flight recorder kept it, its parts' JSON by hash. */
export interface RecordedExchange {
  turn: number;
  callIndex: number;
  seq: number;
  answeredBy: string;
  manifest: RequestManifest;
  reply: string;
}

/** The run's recorded requests and replies in order, and every part's text; none for a run before the recorder. */
export async function recordedExchanges(
  db: Sql,
  experimentId: string,
): Promise<{ exchanges: RecordedExchange[]; body: (hash: string) => string | undefined }> {
  const { rows, manifests } = await exchangeRows(db, experimentId);
  const parts = new Set([...manifests.values()].flatMap((m) => [m.system, ...m.messages]));
  const bodies = await readBodies(db, [...parts, ...rows.map((r) => r.reply_sha256)]);
  const exchanges = rows.map((r) => ({
    turn: r.turn_number,
    callIndex: r.call_index,
    seq: r.seq,
    answeredBy: r.answered_by,
    manifest: manifests.get(r.request_key)!,
    reply: bodies.get(r.reply_sha256)!,
  }));
  return { exchanges, body: (h) => bodies.get(h) };
}
