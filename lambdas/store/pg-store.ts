// The Postgres store: mazes, experiments and turns. Every write is
// idempotent: a maze by content hash, an experiment by id, a turn by
// (experiment_id, turn_number) in one statement.
import type pg from 'pg';
import { Grid } from '../maze/grid.ts';
import type { Maze } from '../maze/maze.ts';
import type { ExperimentConfig } from '../config/experiment-config.ts';
import type { GameState } from '../engine/game.ts';
import type { EngineStore, ExperimentInfo, ExperimentStatus, TurnContext, TurnSummary, TurnWrite } from '../engine/store.ts';
import { ExperimentNotFoundError } from '../engine/errors.ts';
import { COMMIT_TURN_SQL, turnParams } from './turn-sql.ts';

export interface NewExperiment {
  id: string;
  executionArn: string | null;
  agent: string;
  provider: string;
  model: string | null;
  promptVersion: string | null;
  promptHash: string | null;
  promptText: string | null;
  agentSeed: number;
  mazeId: number;
  config: ExperimentConfig;
  optimalMoves: number;
  initialState: GameState;
}

export interface Finalization {
  status: Exclude<ExperimentStatus, 'running'>;
  stopReason: string;
  failureReason?: string | null;
}

export class PgStore implements EngineStore {
  private readonly mazes = new Map<number, Maze>();
  constructor(readonly pool: pg.Pool) {}

  /** Inserts the maze unless its content hash is known; returns its id either way. */
  async saveMaze(maze: Maze): Promise<number> {
    const { rows } = await this.pool.query<{ id: number }>(
      `INSERT INTO mazes (content_hash, generator, seed, width, height, grid, start_x, start_y, goal_x, goal_y, shortest_path, shortest_path_to_sight)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (content_hash) DO UPDATE SET content_hash = EXCLUDED.content_hash
       RETURNING id`,
      [maze.hash, maze.generator, maze.seed, maze.width, maze.height, JSON.stringify(maze.grid.toRows()),
        maze.start.x, maze.start.y, maze.goal.x, maze.goal.y, maze.shortestPath, maze.shortestPathToSight]);
    this.mazes.set(rows[0].id, maze);
    return rows[0].id;
  }

  async loadMaze(id: number): Promise<Maze> {
    const cached = this.mazes.get(id);
    if (cached) return cached;
    const { rows } = await this.pool.query('SELECT * FROM mazes WHERE id = $1', [id]);
    if (rows.length === 0) throw new Error(`maze ${id} not found`);
    const r = rows[0];
    const maze: Maze = {
      generator: r.generator, seed: r.seed, width: r.width, height: r.height,
      grid: Grid.fromRows(r.grid), start: { x: r.start_x, y: r.start_y }, goal: { x: r.goal_x, y: r.goal_y },
      hash: r.content_hash, shortestPath: r.shortest_path, shortestPathToSight: r.shortest_path_to_sight,
    };
    this.mazes.set(id, maze);
    return maze;
  }

  /** Creates the experiment unless it exists (a retried start); records the execution ARN once. Returns true if created. */
  async createExperiment(e: NewExperiment): Promise<boolean> {
    const s = e.initialState;
    const { rowCount } = await this.pool.query(
      `INSERT INTO experiments (id, execution_arns, agent, provider, model, prompt_version, prompt_hash, prompt_text, agent_seed,
         maze_id, config, optimal_moves, goal_found, position_x, position_y, tiles_seen, known_tiles, game_state)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
       ON CONFLICT (id) DO NOTHING`,
      [e.id, e.executionArn ? [e.executionArn] : [], e.agent, e.provider, e.model, e.promptVersion, e.promptHash, e.promptText,
        e.agentSeed, e.mazeId, JSON.stringify(e.config), e.optimalMoves, s.goalFound, s.position.x, s.position.y, s.tilesSeen,
        Buffer.from(s.known), JSON.stringify({ lastRecallStep: s.lastRecallStep, recentVision: s.recentVision })]);
    if (!rowCount && e.executionArn) {
      await this.pool.query(
        `UPDATE experiments SET execution_arns = array_append(execution_arns, $2::text)
         WHERE id = $1 AND NOT ($2::text = ANY (execution_arns))`, [e.id, e.executionArn]);
    }
    return rowCount === 1;
  }

  async getExperimentInfo(id: string): Promise<ExperimentInfo & { mazeId: number }> {
    const { rows } = await this.pool.query(
      'SELECT id, agent, model, agent_seed, status, config, started_at, maze_id FROM experiments WHERE id = $1', [id]);
    if (rows.length === 0) throw new ExperimentNotFoundError(id);
    const r = rows[0];
    return { id: r.id, agent: r.agent, model: r.model, agentSeed: r.agent_seed, status: r.status, config: r.config, startedAt: r.started_at, mazeId: r.maze_id };
  }

  async loadTurnContext(experimentId: string): Promise<TurnContext> {
    const { rows } = await this.pool.query(
      `SELECT id, agent, model, agent_seed, status, config, started_at, maze_id, position_x, position_y,
              actions_taken, turns_completed, tiles_seen, goal_found, known_tiles, game_state
       FROM experiments WHERE id = $1`, [experimentId]);
    if (rows.length === 0) throw new ExperimentNotFoundError(experimentId);
    const r = rows[0];
    const maze = await this.loadMaze(r.maze_id);
    const known: Buffer = r.known_tiles;
    return {
      experiment: { id: r.id, agent: r.agent, model: r.model, agentSeed: r.agent_seed, status: r.status, config: r.config, startedAt: r.started_at },
      maze,
      state: {
        position: { x: r.position_x, y: r.position_y },
        actionsTaken: r.actions_taken, turnsCompleted: r.turns_completed, tilesSeen: r.tiles_seen, goalFound: r.goal_found,
        lastRecallStep: r.game_state.lastRecallStep, recentVision: r.game_state.recentVision,
        known: new Uint8Array(known.buffer, known.byteOffset, known.byteLength).slice(),
      },
    };
  }

  async findTurn(experimentId: string, turnNumber: number): Promise<TurnSummary | null> {
    const { rows } = await this.pool.query(
      `SELECT actions_executed, calls_refused, stop_reason, goal_found, actions_taken_after, tiles_seen_after, position_x_after, position_y_after
       FROM turns WHERE experiment_id = $1 AND turn_number = $2`, [experimentId, turnNumber]);
    if (rows.length === 0) return null;
    const r = rows[0];
    return {
      experimentId, turnNumber, actionsExecuted: r.actions_executed, callsRefused: r.calls_refused, stopReason: r.stop_reason,
      goalFound: r.goal_found, actionsTaken: r.actions_taken_after, tilesSeen: r.tiles_seen_after,
      position: { x: r.position_x_after, y: r.position_y_after }, replayed: true,
    };
  }

  async commitTurn(turn: TurnWrite): Promise<boolean> {
    const { rows } = await this.pool.query<{ written: number }>(COMMIT_TURN_SQL, turnParams(turn));
    return rows[0].written === 1;
  }

  /** Moves a running experiment to its final status; a second call changes nothing. Returns the status it has now. */
  async finalizeExperiment(id: string, f: Finalization): Promise<{ status: ExperimentStatus; changed: boolean }> {
    const { rows } = await this.pool.query<{ status: ExperimentStatus }>(
      `UPDATE experiments SET status = $2, stop_reason = $3, failure_reason = $4, completed_at = now(), updated_at = now()
       WHERE id = $1 AND status = 'running' RETURNING status`, [id, f.status, f.stopReason, f.failureReason ?? null]);
    if (rows.length > 0) return { status: rows[0].status, changed: true };
    const current = await this.pool.query<{ status: ExperimentStatus }>('SELECT status FROM experiments WHERE id = $1', [id]);
    if (current.rows.length === 0) throw new ExperimentNotFoundError(id);
    return { status: current.rows[0].status, changed: false };
  }
}
