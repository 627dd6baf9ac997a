// The Postgres store: mazes, experiments and turns, over the SQL port (pg or
// the RDS Data API). Every write is idempotent: a maze by content hash, an
// experiment by id, a turn by (experiment_id, turn_number) in one statement.
// Parameters the Data API would send as text are cast in the SQL (jsonb, text[]).
import { contentHash } from '../maze/grid.ts';
import { checkForkPoint } from './fork-prefix-sql.ts';
import { packCells, unpackCells } from '../maze/packed-grid.ts';
import type { Maze } from '../maze/maze.ts';
import type { ExperimentConfig } from '../config/experiment-config.ts';
import { cloneState, stateFromLog, type LoggedVision } from '../engine/game.ts';
import type {
  EngineStore,
  ExperimentInfo,
  ExperimentStatus,
  Halt,
  TurnContext,
  TurnStopReason,
  TurnSummary,
  TurnWrite,
  AbandonedCallsWrite,
} from '../engine/store.ts';
import { ExperimentClosedError, ExperimentNotFoundError, InvalidInputError } from '../errors.ts';
import type { NewExperiment, StartStore, SweepRef } from '../engine/experiment.ts';
import type { MonitorSnapshot, Phase } from '../engine/agent-monitor.ts';
import { LIMITS, refuseOversizedExperiment, truncateText } from './stored-limits.ts';
import { commitTurnQuery } from './turn-sql.ts';
import { recordAbandonedQuery } from './abandoned-sql.ts';
import { spentTokens } from '../engine/token-cost.ts';
import { probeSpend } from '../engine/belief-probe.ts';
import type { QueryOptions, Sql, SqlResult, SqlValue } from './sql.ts';
import { readPaged } from './pages.ts';

export interface Finalization {
  status: Exclude<ExperimentStatus, 'running'>;
  stopReason: string;
  failureReason?: string | null;
}

const STATE_CACHE_SIZE = 256;
/** The columns of experiment_totals (migration 017), as finalize rewrites them. */
const TOTALS =
  'tool_calls, text_tool_calls, invalid_actions, failed_moves, recall_calls, refused_calls, loop_cells, ' +
  'max_cell_visits, llm_calls, input_tokens, output_tokens, cost_usd, cost_known, last_phase, stuck_signals, ' +
  'first_stuck_detector, first_stuck_step, abandoned_calls, probe_calls';
const EXCLUDED_TOTALS = TOTALS.split(', ')
  .map((c) => `EXCLUDED.${c}`)
  .join(', ');
const FAILURE = 'experiments.failure_reason';

const INFO_COLUMNS =
  'id, agent, model, prompt_text, agent_seed, status, config, started_at, maze_id, token_calibration, provenance, ' +
  'forked_from, fork_step';

// Rows as the queries below return them (bigint and numeric are parsed to numbers in database.ts; jsonb is parsed).

/** The columns of INFO_COLUMNS. */
interface InfoRow {
  id: string;
  agent: string;
  model: string | null;
  prompt_text: string | null;
  agent_seed: number;
  status: ExperimentStatus;
  config: ExperimentConfig;
  started_at: Date;
  maze_id: number;
  token_calibration: number | null;
  provenance: unknown;
  forked_from: string | null;
  fork_step: number | null;
}

interface MazeRow {
  generator: string;
  seed: number | null;
  width: number;
  height: number;
  /** 2 bits a cell, base64 (maze/packed-grid.ts): a 201x201 maze is one row of about 14 KB. */
  cells: string;
  start_x: number;
  start_y: number;
  goal_x: number;
  goal_y: number;
  content_hash: string;
  shortest_path: number;
  shortest_path_to_sight: number;
}

interface ContextRow extends InfoRow {
  position_x: number;
  position_y: number;
  actions_taken: number;
  turns_completed: number;
  goal_found: boolean;
  agent_memory: unknown;
  spent_tokens: number;
  spent_cost_usd: number;
}

interface ActionLogRow {
  step_number: number;
  vision: LoggedVision['vision'];
  outcome: string;
  to_x: number;
  to_y: number;
}

interface TurnRow {
  actions_executed: number;
  calls_refused: number;
  stop_reason: TurnStopReason;
  goal_found: boolean;
  actions_taken_after: number;
  tiles_seen_after: number;
  position_x_after: number;
  position_y_after: number;
  agent_phase: Phase | null;
  halted_by: Halt | null;
}

function experimentInfoOf(r: InfoRow): ExperimentInfo {
  return {
    id: r.id,
    agent: r.agent,
    model: r.model,
    promptText: r.prompt_text,
    agentSeed: r.agent_seed,
    status: r.status,
    config: r.config,
    startedAt: r.started_at,
    tokenCalibration: r.token_calibration,
    provenance: r.provenance,
    fork: r.forked_from === null ? null : { parent: r.forked_from, atStep: r.fork_step! },
  };
}

/** A try of a turn that failed with its provider unavailable (migration 030). */
export interface ProviderDownWrite {
  experimentId: string;
  turnNumber: number;
  /** The outage waits before the try. */
  waits: number;
  /** Seconds to the next try at the latest, by the count of failed tries at these waits (the last for any later). */
  nextTrySeconds: number[];
}

export class PgStore implements EngineStore {
  private readonly mazes = new Map<number, Maze>();
  /**
   * The state after turn n never changes once committed, so a warm process
   * keeps the context of the running experiments it commits, and runs the
   * next turn without reading: if anyone else moved the experiment on
   * meanwhile, the commit's conditional update fails and the engine re-reads.
   */
  private readonly contexts = new Map<string, TurnContext>();
  /**
   * Experiments whose remembered state a turn has taken: the turn changes it in place (no copy of a maze-sized
   * state each turn), so no other turn gets it until the turn's commit hands its state back.
   */
  private readonly lent = new Set<string>();
  constructor(readonly db: Sql) {}

  /** Every statement of the store; the transport retries transient failures (writes are idempotent). */
  private query<R extends object = Record<string, unknown>>(
    text: string,
    values?: readonly SqlValue[],
    options?: QueryOptions,
  ): Promise<SqlResult<R>> {
    return this.db.query<R>(text, values, options);
  }

  /** Keeps a running experiment's context for its next turn; `lent`: a turn has its state now. */
  private remember(ctx: TurnContext, lent: boolean): void {
    const id = ctx.experiment.id;
    this.contexts.delete(id);
    this.contexts.set(id, ctx);
    if (lent) this.lent.add(id);
    else this.lent.delete(id);
    if (this.contexts.size > STATE_CACHE_SIZE) this.forget(this.contexts.keys().next().value!);
  }

  private forget(id: string): void {
    this.contexts.delete(id);
    this.lent.delete(id);
  }

  async checkForkPoint(fork: { parent: string; atStep: number }, mazeHash: string): Promise<void> {
    await checkForkPoint(this.db, fork.parent, fork.atStep, mazeHash);
  }

  async checkSweepRun(ref: SweepRef): Promise<void> {
    const { rowCount } = await this.query('SELECT 1 FROM sweep_cells WHERE sweep_id = $1 AND cell_index = $2', [
      ref.id,
      ref.cell,
    ]);
    if (rowCount === 0)
      throw new InvalidInputError(
        'sweep',
        ref,
        `sweep "${ref.id}" has no cell ${ref.cell}; ` +
          "sweeps are registered by ariadne sweep (or the sweep machine's RegisterSweep) before their runs start",
      );
  }

  /** Inserts the maze unless its content hash is known; returns its id either way. */
  async saveMaze(maze: Maze): Promise<number> {
    const { rows } = await this.query<{ id: number }>(
      `INSERT INTO mazes (content_hash, generator, seed, width, height, cells, start_x, start_y, goal_x, goal_y,
         shortest_path, shortest_path_to_sight)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (content_hash) DO UPDATE SET content_hash = EXCLUDED.content_hash
       RETURNING id`,
      [
        maze.hash,
        maze.generator,
        maze.seed,
        maze.width,
        maze.height,
        packCells(maze.grid),
        maze.start.x,
        maze.start.y,
        maze.goal.x,
        maze.goal.y,
        maze.shortestPath,
        maze.shortestPathToSight,
      ],
    );
    this.mazes.set(rows[0].id, maze);
    return rows[0].id;
  }

  async loadMaze(id: number): Promise<Maze> {
    const cached = this.mazes.get(id);
    if (cached) return cached;
    const { rows } = await this.query<MazeRow>(
      `SELECT generator, seed, width, height, cells, start_x, start_y, goal_x, goal_y, content_hash, shortest_path,
              shortest_path_to_sight
       FROM mazes WHERE id = $1`,
      [id],
    );
    if (rows.length === 0) throw new Error(`maze ${id} not found`);
    const r = rows[0];
    const grid = unpackCells(r.cells, r.width, r.height);
    const start = { x: r.start_x, y: r.start_y };
    // the hash was taken from the grid as generated: a maze read back differently is never run
    if (contentHash(grid, start) !== r.content_hash)
      throw new Error(`maze ${id}: its cells do not hash to its content_hash ${r.content_hash}`);
    const maze: Maze = {
      generator: r.generator,
      seed: r.seed,
      width: r.width,
      height: r.height,
      grid,
      start,
      goal: { x: r.goal_x, y: r.goal_y },
      hash: r.content_hash,
      shortestPath: r.shortest_path,
      shortestPathToSight: r.shortest_path_to_sight,
    };
    this.mazes.set(id, maze);
    return maze;
  }

  /**
   * Creates the experiment unless it exists (a retried start), recording the
   * execution ARN once; returns the stored start time and config either way.
   */
  async createExperiment(e: NewExperiment): ReturnType<StartStore['createExperiment']> {
    refuseOversizedExperiment(e.promptText, e.config); // startExperiment refused it already; any other caller here
    const s = e.initialState;
    const { rows } = await this.query<{ started_at: Date }>(
      `INSERT INTO experiments (id, execution_arns, agent, provider, model, prompt_version, prompt_hash, prompt_text,
         agent_seed, maze_id, config, optimal_moves, goal_found, position_x, position_y, tiles_seen,
         sweep_id, sweep_cell, sweep_repeat, sweep_attempt, task_token, forked_from, fork_step, player, suite,
         suite_maze)
       VALUES ($1, $2::text[], $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13, $14, $15, $16, $17, $18, $19,
               $20, $21, $22, $23, $24, $25, $26)
       ON CONFLICT (id) DO NOTHING RETURNING started_at`,
      [
        e.id,
        e.executionArn ? [e.executionArn] : [],
        e.agent,
        e.provider,
        e.model,
        e.promptVersion,
        e.promptHash,
        e.promptText,
        e.agentSeed,
        e.mazeId,
        JSON.stringify(e.config),
        e.optimalMoves,
        s.goalFound,
        s.position.x,
        s.position.y,
        s.tilesSeen,
        e.sweep?.id ?? null,
        e.sweep?.cell ?? null,
        e.sweep?.repeat ?? null,
        e.sweep?.attempt ?? null,
        e.taskToken ?? null,
        e.fork?.parent ?? null,
        e.fork?.atStep ?? null,
        e.player ?? null,
        e.suiteMaze?.suite ?? null,
        e.suiteMaze?.index ?? null,
      ],
    );
    if (rows.length === 1) {
      const experiment: ExperimentInfo = {
        id: e.id,
        agent: e.agent,
        model: e.model,
        promptText: e.promptText,
        agentSeed: e.agentSeed,
        status: 'running',
        config: e.config,
        startedAt: rows[0].started_at,
        fork: e.fork ?? null,
      };
      const maze = await this.loadMaze(e.mazeId);
      this.remember({ experiment, maze, state: cloneState(s), agentState: null, agentMemory: null }, false);
      return { created: true, startedAt: rows[0].started_at, config: e.config };
    }
    if (e.executionArn) {
      await this.query(
        `UPDATE experiments SET execution_arns = array_append(execution_arns, $2::text)
         WHERE id = $1 AND NOT ($2::text = ANY (execution_arns))`,
        [e.id, e.executionArn],
      );
    }
    const stored = await this.getExperimentInfo(e.id);
    return { created: false, startedAt: stored.startedAt, config: stored.config, existing: stored };
  }

  async getExperimentInfo(id: string): Promise<ExperimentInfo & { mazeId: number }> {
    const { rows } = await this.query<InfoRow>(`SELECT ${INFO_COLUMNS} FROM experiments WHERE id = $1`, [id]);
    if (rows.length === 0) throw new ExperimentNotFoundError(id);
    return { ...experimentInfoOf(rows[0]), mazeId: rows[0].maze_id };
  }

  async loadTurnContext(experimentId: string, opts: { forTurn?: number } = {}): Promise<TurnContext> {
    const cached = this.lent.has(experimentId) ? undefined : this.contexts.get(experimentId);
    if (cached && opts.forTurn !== undefined && cached.state.turnsCompleted === opts.forTurn - 1) {
      this.lent.add(experimentId);
      return { ...cached };
    }
    const { rows } = await this.query<ContextRow>(
      `SELECT ${INFO_COLUMNS}, position_x, position_y, actions_taken, turns_completed, goal_found, agent_memory,
              spent_tokens, spent_cost_usd
       FROM experiments WHERE id = $1`,
      [experimentId],
    );
    if (rows.length === 0) throw new ExperimentNotFoundError(experimentId);
    const r = rows[0];
    const experiment = experimentInfoOf(r);
    const spent = { tokens: Number(r.spent_tokens), costUsd: Number(r.spent_cost_usd) };
    const [maze, agentState] = await Promise.all([
      this.loadMaze(r.maze_id),
      this.agentStateAfter(experimentId, r.turns_completed),
    ]);
    if (cached && cached.state.turnsCompleted === r.turns_completed) {
      const known: TurnContext = {
        experiment,
        maze,
        state: cached.state,
        agentState,
        agentMemory: r.agent_memory,
        spent,
      };
      this.remember(known, true);
      return { ...known };
    }
    const log = await this.executedActions(experimentId);
    const state = stateFromLog(
      maze,
      experiment.config,
      {
        position: { x: r.position_x, y: r.position_y },
        actionsTaken: r.actions_taken,
        turnsCompleted: r.turns_completed,
        goalFound: r.goal_found,
      },
      log.map((a) => ({
        step: a.step_number,
        vision: a.vision,
        recalled: a.outcome === 'recalled',
        entered: a.outcome === 'moved' ? { x: a.to_x, y: a.to_y } : null,
      })),
    );
    const ctx: TurnContext = { experiment, maze, state, agentState, agentMemory: r.agent_memory, spent };
    if (experiment.status === 'running') this.remember(ctx, true);
    return { ...ctx };
  }

  /**
   * The agent monitor's snapshot after turn n (null before the first), read on its own: beside the experiment's
   * prompt, config and memory it would make one row of up to twice the Data API's 64 KB (engine/stored-limits.ts).
   * A committed turn never changes, so reading it by number is as consistent as one statement.
   */
  private async agentStateAfter(experimentId: string, turn: number): Promise<MonitorSnapshot | null> {
    if (turn === 0) return null;
    const { rows } = await this.query<{ agent_state: MonitorSnapshot | null }>(
      'SELECT agent_state FROM turns WHERE experiment_id = $1 AND turn_number = $2',
      [experimentId, turn],
    );
    return rows[0]?.agent_state ?? null;
  }

  /**
   * The executed actions of an experiment in step order, read in pages: a long experiment's log passes the
   * Data API's 1 MiB per response, so a page that is too large is read again in halves (pages.ts).
   */
  private executedActions(experimentId: string): Promise<ActionLogRow[]> {
    return readPaged(async (last, limit) => {
      const { rows } = await this.query<ActionLogRow>(
        `SELECT step_number, vision, outcome, to_x, to_y FROM actions
         WHERE experiment_id = $1 AND executed AND step_number > $2 ORDER BY step_number LIMIT $3`,
        [experimentId, last?.step_number ?? 0, limit],
      );
      return rows;
    });
  }

  async findTurn(experimentId: string, turnNumber: number): Promise<TurnSummary | null> {
    const { rows } = await this.query<TurnRow>(
      `SELECT actions_executed, calls_refused, stop_reason, goal_found, actions_taken_after, tiles_seen_after,
              position_x_after, position_y_after, agent_phase, halted_by
       FROM turns WHERE experiment_id = $1 AND turn_number = $2`,
      [experimentId, turnNumber],
    );
    if (rows.length === 0) return null;
    const r = rows[0];
    return {
      experimentId,
      turnNumber,
      actionsExecuted: r.actions_executed,
      callsRefused: r.calls_refused,
      stopReason: r.stop_reason,
      goalFound: r.goal_found,
      actionsTaken: r.actions_taken_after,
      tilesSeen: r.tiles_seen_after,
      position: { x: r.position_x_after, y: r.position_y_after },
      phase: r.agent_phase ?? 'exploring',
      halt: r.halted_by,
      replayed: true,
    };
  }

  async commitTurn(turn: TurnWrite): Promise<boolean> {
    const { name, text, values } = commitTurnQuery(turn);
    const { rows } = await this.query<{ written: number }>(text, values, { name });
    const written = rows[0].written === 1;
    const cached = this.contexts.get(turn.experimentId);
    if (written && cached)
      // the turn's state is the store's now (EngineStore.commitTurn)
      this.remember(
        {
          ...cached,
          // the stored calibration is the first one written (coalesce in turn-sql.ts)
          experiment: {
            ...cached.experiment,
            tokenCalibration: cached.experiment.tokenCalibration ?? turn.tokenCalibration ?? null,
            provenance: cached.experiment.provenance ?? turn.provenance ?? null,
          },
          state: turn.stateAfter,
          agentState: turn.agentStateAfter,
          agentMemory: turn.agentMemoryAfter ?? cached.agentMemory,
          // as the statement added them (turn-sql.ts), the belief probe's call included
          spent: {
            tokens: (cached.spent?.tokens ?? 0) + spentTokens(turn.totals) + probeSpend(turn.probe).tokens,
            costUsd: (cached.spent?.costUsd ?? 0) + (turn.totals.costUsd ?? 0) + probeSpend(turn.probe).costUsd,
          },
        },
        false,
      );
    else this.forget(turn.experimentId);
    return written;
  }

  async recordAbandonedCalls(write: AbandonedCallsWrite): Promise<void> {
    // the remembered spend is behind now: the next turn reads it
    this.forget(write.experimentId);
    if (write.calls.length === 0) return;
    const { name, text, values } = recordAbandonedQuery(write);
    await this.query(text, values, { name });
  }

  /** Names the run `replay` replays (`ariadne rerun --replay`): its trajectory must equal that run's. */
  async linkReplay(replay: string, original: string): Promise<void> {
    await this.query('UPDATE experiments SET replay_of = $2 WHERE id = $1', [replay, original]);
  }

  /** Notes a try of a turn that failed with its provider unavailable, for status to show the outage while it lasts. */
  async recordProviderDown(w: ProviderDownWrite): Promise<void> {
    // A try of the turn at the same waits is one more of them; another turn (or none before) starts the outage anew.
    // Only the running experiment's next turn: a try that lost the race to a commit notes nothing.
    const tries = `CASE WHEN provider_down_turn = $2 AND provider_down_waits = $3 THEN provider_failed_tries + 1
                   ELSE 1 END`;
    await this.query(
      `UPDATE experiments SET
         provider_down_since = CASE WHEN provider_down_turn = $2 THEN provider_down_since ELSE now() END,
         provider_failed_tries = ${tries},
         provider_next_try_at = now() + make_interval(secs =>
           ($4::jsonb ->> (least(${tries}, jsonb_array_length($4::jsonb)) - 1))::int),
         provider_down_turn = $2, provider_down_waits = $3
       WHERE id = $1 AND status = 'running' AND turns_completed = $2 - 1`,
      [w.experimentId, w.turnNumber, w.waits, JSON.stringify(w.nextTrySeconds)],
      { name: 'ariadne-record-provider-down' },
    );
  }

  /** Records a further execution of a running experiment (continue as new); idempotent. */
  async attachExecution(id: string, executionArn: string): Promise<void> {
    const { rowCount } = await this.query(
      `UPDATE experiments SET execution_arns = CASE WHEN $2::text = ANY (execution_arns) THEN execution_arns
                                                    ELSE array_append(execution_arns, $2::text) END,
              updated_at = now()
       WHERE id = $1 AND status = 'running'`,
      [id, executionArn],
    );
    if (rowCount === 1) return;
    const { status } = await this.getExperimentInfo(id); // throws ExperimentNotFoundError
    throw new ExperimentClosedError(id, status);
  }

  /** The experiment an execution belongs to, and the latest execution of that experiment. */
  async findByExecution(executionArn: string): Promise<{
    id: string;
    status: ExperimentStatus;
    latestExecution: string | null;
    taskToken: string | null;
  } | null> {
    const { rows } = await this.query<{
      id: string;
      status: ExperimentStatus;
      latest: string | null;
      task_token: string | null;
    }>(
      `SELECT id, status, execution_arns[array_upper(execution_arns, 1)] AS latest, task_token
       FROM experiments WHERE execution_arns @> ARRAY[$1::text]`,
      [executionArn],
    );
    const r = rows[0];
    return r ? { id: r.id, status: r.status, latestExecution: r.latest, taskToken: r.task_token } : null;
  }

  /** Moves a running experiment to its final status; a second call changes nothing. Returns the status it has now. */
  async finalizeExperiment(id: string, f: Finalization): Promise<{ status: ExperimentStatus; changed: boolean }> {
    this.forget(id);
    // the trajectory hash (migration 011) marks runs that did the same thing, for the statistics' copies; the kept
    // totals (migration 017) are recomputed whole from the run's own rows, in the same statement, so a finished
    // run's summary is its log's; its moves are packed for the sweep-wide readers (migration 035)
    const { rows } = await this.query<{ status: ExperimentStatus }>(
      `WITH done AS (
         UPDATE experiments SET status = $2, stop_reason = $3, failure_reason = $4,
                                trajectory_hash = experiment_trajectory_hash(id),
                                completed_at = now(), updated_at = now()
         WHERE id = $1 AND status = 'running' RETURNING id, status
       ), totals AS (
         INSERT INTO experiment_totals (experiment_id, ${TOTALS})
         SELECT experiment_id, ${TOTALS} FROM experiment_totals_recomputed WHERE experiment_id IN (SELECT id FROM done)
         ON CONFLICT (experiment_id) DO UPDATE SET (${TOTALS}) = (${EXCLUDED_TOTALS})
         RETURNING 1
       ), trace AS (
         -- experiment_id = $1, not IN (done): a qual with a subquery would not reach inside the view's grouping
         INSERT INTO run_traces (experiment_id, chunk, actions)
         SELECT experiment_id, chunk, actions FROM run_trace_chunks
         WHERE experiment_id = $1 AND EXISTS (SELECT 1 FROM done)
         ON CONFLICT (experiment_id, chunk) DO UPDATE SET actions = EXCLUDED.actions
         RETURNING 1
       )
       SELECT status FROM done`,
      // an error's text (a provider's reply body, a stack) is cut to fit the row, with a marker
      [id, f.status, f.stopReason, f.failureReason ? truncateText(f.failureReason, LIMITS[FAILURE]) : null],
    );
    if (rows.length > 0) return { status: rows[0].status, changed: true };
    const current = await this.query<{ status: ExperimentStatus }>('SELECT status FROM experiments WHERE id = $1', [
      id,
    ]);
    if (current.rows.length === 0) throw new ExperimentNotFoundError(id);
    return { status: current.rows[0].status, changed: false };
  }
}
