// A recorded run read back for `ariadne rerun --replay`: the request it started from (agent, model, seed, maze,
// config as stored) and its model calls in order with their requests and replies (migration 031).
import type { Sql } from '../core/store/sql.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { InvalidInputError } from '../core/errors.ts';
import type { StartExecutionInput } from '../core/machine/contracts.ts';
import type { RequestManifest } from '../core/providers/llm/model-request.ts';
import { modelVersionOf, ReplayScript, type RecordedCall } from '../core/providers/llm/recorded-model.ts';

interface RunRow {
  agent: string;
  model: string | null;
  agent_seed: number;
  config: Record<string, unknown>;
  maze_id: number;
  provenance: Record<string, unknown> | null;
  status: string;
  llm_calls: number;
  recorded: number;
}

/** The run `id` as recorded; InvalidInputError when there is none, or when its model calls were not recorded. */
async function recordedRun(db: Sql, id: string): Promise<RunRow> {
  const { rows } = await db.query<RunRow>(
    `SELECT e.agent, e.model, e.agent_seed, e.config, e.maze_id, e.provenance, e.status,
       (SELECT count(*) FROM llm_calls l WHERE l.experiment_id = e.id)::int AS llm_calls,
       (SELECT count(DISTINCT (x.turn_number, x.call_index)) FROM model_exchanges x WHERE x.experiment_id = e.id)::int
         AS recorded
     FROM experiments e WHERE e.id = $1`,
    [id],
  );
  const run = rows[0];
  if (!run) throw new InvalidInputError('experiment-id', id, `no experiment ${id}: see \`ariadne list\``);
  if (run.recorded < run.llm_calls)
    throw new InvalidInputError(
      'experiment-id',
      id,
      `experiment ${id} has ${run.llm_calls} model calls and ${run.recorded} recorded ` +
        '(it ran before the flight recorder): it cannot be replayed; rerun it without --replay',
    );
  return run;
}

/** The start request that runs `id` again: its agent, model, seed, maze and stored config; a new experiment id. */
export async function rerunRequest(db: Sql, id: string, newId: string): Promise<StartExecutionInput> {
  const run = await recordedRun(db, id);
  const maze = await new PgStore(db).loadMaze(run.maze_id);
  return {
    experimentId: newId,
    agent: run.agent,
    model: run.model,
    agentSeed: run.agent_seed,
    maze: { grid: maze.grid.toRows(), start: maze.start },
    config: run.config,
  };
}

/** The recorded calls of `id`, in order, as a script a replaying model answers from. */
export async function replayScript(db: Sql, id: string): Promise<ReplayScript> {
  const run = await recordedRun(db, id);
  const { rows } = await db.query<{
    turn_number: number;
    call_index: number;
    request_key: string;
    manifest: RequestManifest;
    reply: string;
  }>(
    `SELECT x.turn_number, x.call_index, x.request_key, q.manifest, b.body AS reply
     FROM model_exchanges x
     JOIN model_requests q ON q.request_key = x.request_key
     JOIN model_bodies b ON b.sha256 = x.reply_sha256
     WHERE x.experiment_id = $1 ORDER BY x.turn_number, x.call_index, x.seq`,
    [id],
  );
  const calls: RecordedCall[] = rows.map((r) => ({
    turn: r.turn_number,
    callIndex: r.call_index,
    manifest: r.manifest,
    requestKey: r.request_key,
    reply: r.reply,
  }));
  const parts = [
    ...new Set(
      rows.flatMap((r) => [r.manifest.parameters, r.manifest.system, r.manifest.tools, ...r.manifest.messages]),
    ),
  ];
  const bodies = await db.query<{ sha256: string; body: string }>(
    'SELECT sha256, body FROM model_bodies WHERE sha256 = ANY($1::text[])',
    [parts],
  );
  const byHash = new Map(bodies.rows.map((b) => [b.sha256, b.body]));
  return new ReplayScript(modelVersionOf(run.provenance), calls, (h) => byHash.get(h), run.provenance);
}

/** The trajectory hashes of an original and its rerun (null while a run has none). */
export async function trajectoryHashes(db: Sql, original: string, rerun: string) {
  const { rows } = await db.query<{ id: string; trajectory_hash: string | null }>(
    'SELECT id, trajectory_hash FROM experiments WHERE id = ANY($1::text[])',
    [[original, rerun]],
  );
  const of = (id: string) => rows.find((r) => r.id === id)?.trajectory_hash ?? null;
  return { original: of(original), rerun: of(rerun) };
}

/** What a run's record holds: its calls, its distinct parts and replies, and their bytes with manifests and rows. */
export async function recordSize(db: Sql, id: string) {
  const { rows } = await db.query<{ actions: number; calls: number; parts: number; bytes: number }>(
    `WITH x AS (SELECT * FROM model_exchanges WHERE experiment_id = $1),
     hashes AS (
       SELECT reply_sha256 AS h FROM x
       UNION SELECT jsonb_array_elements_text(q.manifest -> 'messages') FROM x JOIN model_requests q USING (request_key)
       UNION SELECT q.manifest ->> k FROM x JOIN model_requests q USING (request_key),
         unnest(ARRAY['parameters', 'system', 'tools']) AS k)
     SELECT (SELECT actions_taken FROM experiments WHERE id = $1) AS actions,
       (SELECT count(*) FROM x)::int AS calls, (SELECT count(*) FROM hashes)::int AS parts,
       (coalesce((SELECT sum(octet_length(b.body)) FROM model_bodies b JOIN hashes ON b.sha256 = hashes.h), 0)
        + coalesce((SELECT sum(pg_column_size(q.manifest)) FROM model_requests q
                    WHERE q.request_key IN (SELECT request_key FROM x)), 0)
        + coalesce((SELECT sum(pg_column_size(x.*)) FROM x), 0))::bigint AS bytes`,
    [id],
  );
  return rows[0];
}
