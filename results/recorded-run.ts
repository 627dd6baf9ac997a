// A recorded run read back for `ariadne rerun --replay`: the request it started from (agent, model, seed, maze,
// config as stored) and its model calls in order with their requests and replies (migration 031).
import type { Sql } from '../core/store/sql.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { InvalidInputError } from '../core/errors.ts';
import { isHuman } from '../core/providers/human.ts';
import type { StartExecutionInput } from '../core/machine/contracts.ts';
import type { RequestManifest } from '../core/providers/llm/model-request.ts';
import type { ModelReply } from '../core/providers/llm/chat-model.ts';
import { modelVersionOf, ReplayScript, type RecordedCall } from '../core/providers/llm/recorded-model.ts';
import { answeredRequests } from '../core/store/fork-prefix-sql.ts';
import { readBodies, readManifests } from '../core/store/model-bodies-sql.ts';
import { readPaged } from '../core/store/pages.ts';

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
  if (isHuman(run.agent))
    throw new InvalidInputError(
      'experiment-id',
      id,
      `experiment ${id} is a person's game (agent human): nothing can play it again in the person's place; ` +
        'play its maze yourself with ariadne play (--suite and --maze-index for a suite maze)',
    );
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

/** A row of model_exchanges: one recorded request and its reply, in the run's order. */
export interface ExchangeRow {
  turn_number: number;
  call_index: number;
  seq: number;
  request_key: string;
  reply_sha256: string;
  answered_by: string;
}

/** The recorded exchanges of `id` in order, with their request manifests (read in pages: a run may have many). */
export async function exchangeRows(
  db: Sql,
  id: string,
): Promise<{ rows: ExchangeRow[]; manifests: Map<string, RequestManifest> }> {
  const rows = await readPaged<ExchangeRow>(
    async (last, limit) =>
      (
        await db.query<ExchangeRow>(
          `SELECT turn_number, call_index, seq, request_key, reply_sha256, answered_by FROM model_exchanges
           WHERE experiment_id = $1 AND (turn_number, call_index, seq) > ($2, $3, $4)
           ORDER BY turn_number, call_index, seq LIMIT $5`,
          [id, last?.turn_number ?? -1, last?.call_index ?? 0, last?.seq ?? 0, limit],
        )
      ).rows,
  );
  const manifests = await readManifests(
    db,
    rows.map((r) => r.request_key),
  );
  return { rows, manifests };
}

/** The recorded calls of `id`, in order, as a script a replaying model answers from. */
export async function replayScript(db: Sql, id: string): Promise<ReplayScript> {
  const run = await recordedRun(db, id);
  const { rows, manifests } = await exchangeRows(db, id);
  const manifestOf = (key: string) => manifests.get(key) as RequestManifest;
  const parts = new Set([...manifests.values()].flatMap((m) => [m.parameters, m.system, m.tools, ...m.messages]));
  const bodies = await readBodies(db, [...parts, ...rows.map((r) => r.reply_sha256)]);
  const calls: RecordedCall[] = rows.map((r) => ({
    turn: r.turn_number,
    callIndex: r.call_index,
    manifest: manifestOf(r.request_key),
    requestKey: r.request_key,
    reply: bodies.get(r.reply_sha256) as string,
  }));
  const probes = await recordedProbes(db, id);
  return new ReplayScript(modelVersionOf(run.provenance), calls, (h) => bodies.get(h), run.provenance, probes);
}

/**
 * The answers of the belief probes `id` asked (migration 033), by the turn each followed, as the replies a replay
 * gives its own probes: the text as stored, its tokens as reported then.
 */
async function recordedProbes(db: Sql, id: string): Promise<Map<number, string>> {
  type Row = {
    turn_number: number;
    answer: string;
    stop_reason: string | null;
    input_tokens: number | null;
    output_tokens: number | null;
    cache_read_input_tokens: number | null;
    cache_write_input_tokens: number | null;
  };
  const rows = await readPaged<Row>(
    async (last, limit) =>
      (
        await db.query<Row>(
          `SELECT turn_number, answer, stop_reason, input_tokens, output_tokens, cache_read_input_tokens,
             cache_write_input_tokens
           FROM belief_probes WHERE experiment_id = $1 AND answer IS NOT NULL AND turn_number > $2
           ORDER BY turn_number LIMIT $3`,
          [id, last?.turn_number ?? 0, limit],
        )
      ).rows,
  );
  return new Map(
    rows.map((r) => {
      const usage =
        r.input_tokens === null
          ? null
          : {
              inputTokens: r.input_tokens,
              outputTokens: r.output_tokens ?? 0,
              ...(r.cache_read_input_tokens === null ? {} : { cacheReadInputTokens: r.cache_read_input_tokens }),
              ...(r.cache_write_input_tokens === null ? {} : { cacheWriteInputTokens: r.cache_write_input_tokens }),
            };
      const reply: ModelReply = { text: r.answer, calls: [], usage, stopReason: r.stop_reason };
      return [r.turn_number, JSON.stringify(reply)];
    }),
  );
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

/**
 * For `ariadne sweep FILE --replay-from SOURCE`: each run of FILE replays the run of the same repeat in SOURCE's
 * cell of the same agent, model and maze (and, where SOURCE has several such cells, the same settings), with that
 * run's agent seed (a seed is sent to the model), its recorded calls read once per run; each turn's cursor starts
 * past the calls the run committed (a turn tried again, or a run resumed, asks again what was not committed).
 */
export class SweepReplay {
  private readonly scripts = new Map<string, Promise<ReplayScript>>();
  constructor(
    private readonly db: Sql,
    readonly source: string,
  ) {}

  /** SOURCE's run for the run of `sweep` at `cell` and `repeat`; InvalidInputError when it has none. */
  private async counterpart(sweep: string, cell: number, repeat: number) {
    const { rows } = await this.db.query<{ id: string | null; agent_seed: number | null; candidates: number }>(
      `WITH me AS (
         SELECT agent, model, maze_generator, maze_size, maze_seed, settings FROM sweep_cells
         WHERE sweep_id = $1 AND cell_index = $2
       ), cand AS (
         SELECT sc.cell_index, sc.settings = me.settings AS same FROM sweep_cells sc, me
         WHERE sc.sweep_id = $4 AND sc.agent = me.agent AND sc.model IS NOT DISTINCT FROM me.model
           AND sc.maze_generator = me.maze_generator AND sc.maze_size = me.maze_size AND sc.maze_seed = me.maze_seed
       ), src AS (
         SELECT x.id, x.agent_seed FROM experiments x JOIN cand ON x.sweep_cell = cand.cell_index
         WHERE x.sweep_id = $4 AND x.sweep_repeat = $3 AND ((SELECT count(*) FROM cand) = 1 OR cand.same)
         ORDER BY x.sweep_attempt DESC LIMIT 1
       )
       SELECT (SELECT count(*) FROM cand)::int AS candidates, (SELECT id FROM src) AS id,
         (SELECT agent_seed FROM src) AS agent_seed`,
      [sweep, cell, repeat, this.source],
    );
    const r = rows[0];
    if (!r?.id)
      throw new InvalidInputError(
        '--replay-from',
        this.source,
        `sweep ${this.source} has no run of the agent, model, maze and repeat ${repeat} of ${sweep}'s cell ${cell}` +
          (r && r.candidates > 1 ? ` with its settings (${r.candidates} cells match otherwise)` : ''),
      );
    return { id: r.id, agentSeed: r.agent_seed! };
  }

  /** A new run's start input with its counterpart's agent seed. */
  async startInput(input: StartExecutionInput): Promise<StartExecutionInput> {
    if (!input.sweep) return input;
    const c = await this.counterpart(input.sweep.id, input.sweep.cell, input.sweep.repeat);
    return { ...input, agentSeed: c.agentSeed };
  }

  /** The recorded calls that answer the run `id`, read once, with a cursor past those it already committed. */
  async scriptFor(id: string): Promise<ReplayScript> {
    let script = this.scripts.get(id);
    if (!script) this.scripts.set(id, (script = this.load(id)));
    return (await script).from(await answeredRequests(this.db, id));
  }

  private async load(id: string): Promise<ReplayScript> {
    const { rows } = await this.db.query<{
      sweep_id: string;
      sweep_cell: number;
      sweep_repeat: number;
      answered: number;
    }>(
      `SELECT sweep_id, sweep_cell, sweep_repeat,
         (SELECT count(*) FROM model_exchanges x WHERE x.experiment_id = e.id)::int AS answered
       FROM experiments e WHERE id = $1`,
      [id],
    );
    const me = rows[0];
    if (!me?.sweep_id) throw new InvalidInputError('--replay-from', this.source, `${id} is not a run of a sweep`);
    const c = await this.counterpart(me.sweep_id, me.sweep_cell, me.sweep_repeat);
    return replayScript(this.db, c.id);
  }
}

/**
 * A sweep of forks (`forks:` in its file): each run continues, after its cell's fork_at step, the run of sweep
 * `from` on the same maze (in the cell `label` names, where `from` ran several agents on it) whose repeat is the
 * fork's, cycling through `from`'s repeats. The run's start input names that run and step (StartExperiment stores
 * them; each turn's agent reads its prefix from them: core/store/fork-prefix-sql.ts).
 */
export class SweepForks {
  constructor(
    private readonly db: Sql,
    readonly forks: { from: string; label?: string },
  ) {}

  async startInput(input: StartExecutionInput): Promise<StartExecutionInput> {
    if (!input.sweep) return input;
    const { id, cell, repeat } = input.sweep;
    const { rows } = await this.db.query<{ parent: string | null; at: number; sources: number }>(
      `WITH me AS (
         SELECT maze_generator, maze_size, maze_seed, (settings ->> 'fork_at')::int AS at FROM sweep_cells
         WHERE sweep_id = $1 AND cell_index = $2
       ), src AS (
         SELECT sc.cell_index FROM sweep_cells sc, me
         WHERE sc.sweep_id = $4 AND ($5::text IS NULL OR sc.label = $5) AND sc.maze_generator = me.maze_generator
           AND sc.maze_size = me.maze_size AND sc.maze_seed = me.maze_seed
       )
       SELECT me.at, (SELECT count(*) FROM src)::int AS sources,
         (SELECT x.id FROM experiments x JOIN src ON x.sweep_cell = src.cell_index
          WHERE x.sweep_id = $4 AND x.sweep_repeat = ($3 - 1) % (SELECT s.repeats FROM sweeps s WHERE s.id = $4) + 1
          ORDER BY x.sweep_attempt DESC LIMIT 1) AS parent
       FROM me`,
      [id, cell, repeat, this.forks.from, this.forks.label ?? null],
    );
    const r = rows[0];
    if (!r?.parent || r.sources !== 1)
      throw new InvalidInputError(
        'forks.from',
        this.forks.from,
        r && r.sources > 1
          ? `sweep ${this.forks.from} ran ${r.sources} cells on the maze of ${id}'s cell ${cell}: name one with ` +
              'forks.label'
          : `sweep ${this.forks.from} has no run on the maze and repeat ${repeat} of ${id}'s cell ${cell} to fork`,
      );
    return { ...input, fork: { parent: r.parent, atStep: r.at } };
  }
}
