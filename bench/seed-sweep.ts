// A large sweep written straight into the tables for benchmarks: copies of one real run's experiment row, with
// turns and actions from generate_series, so a million action rows take seconds, not a million engine steps.
import pg from 'pg';
import { openDatabase, type Database } from '../core/store/database.ts';

/**
 * `schema` dropped and migrated afresh: with BENCH_DATABASE_URL the server outlives a bench run, and a seed that
 * found its sweep already there would fail on its primary key.
 */
export async function freshBenchDatabase(url: string, schema: string, poolSize: number): Promise<Database> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
  return openDatabase({ url, schema, poolSize });
}

/**
 * A sweep of `actions` action rows: runs of `perRun` actions (a multiple of 10), each a copy of one real run's
 * experiment row (its maze, config, agent), with turns of 10 actions (each with tokens and a cost, as a model's
 * would have) and actions written by generate_series. Returns the number of runs.
 */
export async function seedSweep(
  db: Database,
  sweep: string,
  actions: number,
  perRun: number,
  source: string,
): Promise<number> {
  const q = (text: string, values: unknown[] = []) => db.pool.query(text, values);
  const runs = Math.ceil(actions / perRun);
  await q(`INSERT INTO sweeps (id, spec, spec_hash, spec_text, cells, repeats) VALUES ($1, '{}', $1, $1, $2, 1)`, [
    sweep,
    runs,
  ]);
  await q(
    `INSERT INTO sweep_cells SELECT $1, i, 'cell-' || i, 'random', 'random', NULL, m.generator, m.width, i, '{}'
     FROM generate_series(0, $2 - 1) i, experiments e JOIN mazes m ON m.id = e.maze_id WHERE e.id = $3`,
    [sweep, runs, source],
  );
  // each run's counters (actions_taken, turns_completed) equal the rows written for it below
  await q(
    `INSERT INTO experiments (id, agent, provider, model, prompt_version, agent_seed, maze_id, config,
       optimal_moves, status, goal_found, stop_reason, started_at, completed_at, position_x, position_y,
       turns_completed, actions_taken, tiles_seen, sweep_id, sweep_cell, sweep_repeat, sweep_attempt)
     SELECT $1 || '-' || lpad(i::text, 6, '0'), agent, provider, model, prompt_version, i, maze_id, config,
       optimal_moves, 'completed', false, 'max_moves', started_at, completed_at, 1, 1, n / 10, n, 12, $1, i, 0, 1
     FROM generate_series(0, $2 - 1) i, LATERAL (SELECT least($3::int, $4::int - i * $3) AS n) c, experiments
     WHERE id = $5`,
    [sweep, runs, perRun, actions, source],
  );
  await seedRunRows(db, sweep, actions, perRun);
  return runs;
}

/**
 * The turns, actions and kept totals of the runs named `${sweep}-000000`, `${sweep}-000001`, ...: `actions` action
 * rows in runs of `perRun` (a multiple of 10), turns of 10 actions each with tokens and a cost.
 */
async function seedRunRows(db: Database, sweep: string, actions: number, perRun: number): Promise<void> {
  const q = (text: string, values: unknown[] = []) => db.pool.query(text, values);
  const perRunTurns = perRun / 10;
  await q(
    `INSERT INTO turns (experiment_id, turn_number, started_at, ended_at, stop_reason, actions_executed,
       calls_refused, goal_found, actions_taken_after, tiles_seen_after, position_x_after, position_y_after,
       llm_calls, input_tokens, output_tokens, cost_usd)
     SELECT $1 || '-' || lpad(((g - 1) / $2)::text, 6, '0'), (g - 1) % $2 + 1, now(), now(), 'action_limit', 10, 0,
       false, ((g - 1) % $2 + 1) * 10, 12, 1, 1, 1, 900 + g % 200, 60 + g % 40, 0.0031
     FROM generate_series(1, ceil($3::numeric / 10)::int) g`,
    [sweep, perRunTurns, actions],
  );
  // a random agent's move: a direction, a 3x3 vision cone, no reasoning (vision is not exported, but it is stored)
  const cone = JSON.stringify(Array.from({ length: 9 }, (_, i) => [i % 3, Math.floor(i / 3), i === 4 ? 0 : 1]));
  await q(
    `INSERT INTO actions (experiment_id, turn_number, call_index, step_number, tool, arguments, executed, success,
       outcome, message, from_x, from_y, to_x, to_y, vision, new_tiles_seen, goal_found)
     SELECT $1 || '-' || lpad(((s - 1) / $2)::text, 6, '0'), ((s - 1) % $2) / 10 + 1, (s - 1) % 10,
       (s - 1) % $2 + 1, 'move', jsonb_build_object('direction', (ARRAY['north', 'east', 'south', 'west'])[s % 4 + 1]),
       true, s % 5 <> 0, CASE WHEN s % 5 = 0 THEN 'blocked_by_wall' ELSE 'moved' END, 'moved', 1 + s % 7, 1 + s % 5,
       1 + (s + 1) % 7, 1 + s % 5, $3::jsonb, s % 3, false
     FROM generate_series(1, $4::int) s`,
    [sweep, perRun, cone, actions],
  );
  // the kept totals (migration 017) and packed moves (migration 035) as the turns' statements and finalize write them
  await q(
    `INSERT INTO experiment_totals
     SELECT r.* FROM experiment_totals_recomputed r JOIN experiments e ON e.id = r.experiment_id
     WHERE e.sweep_id = $1`,
    [sweep],
  );
  await q(
    `INSERT INTO run_traces (experiment_id, chunk, actions)
     SELECT c.experiment_id, c.chunk, c.actions
     FROM run_trace_chunks c JOIN experiments e ON e.id = c.experiment_id
     WHERE e.sweep_id = $1 AND e.status <> 'running'`,
    [sweep],
  );
}

/** Two agents' source runs and the shape of a paired sweep (seedPairedSweep). */
export interface PairedSweep {
  /** A finished run of each agent (its experiment row is copied): a baseline that ignores its seed goes second. */
  sources: readonly [string, string];
  mazes: number;
  repeats: number;
  /** Action rows a run (a multiple of 10). */
  perRun: number;
}

/**
 * A sweep of two agents on `mazes` mazes, `repeats` runs a cell: the first agent's runs each walk their own way
 * (every third finds the goal), the second's repeat each other on a maze (one trajectory a maze, so its repeats are
 * copies of the first, as a frontier agent's are) and find the goal on three mazes of four. Runs are numbered cell
 * by cell, so their turns and actions are seedSweep's. Returns the number of runs.
 */
export async function seedPairedSweep(db: Database, sweep: string, shape: PairedSweep): Promise<number> {
  const q = (text: string, values: unknown[] = []) => db.pool.query(text, values);
  const { sources, mazes, repeats, perRun } = shape;
  const runs = 2 * mazes * repeats;
  await q(`INSERT INTO sweeps (id, spec, spec_hash, spec_text, cells, repeats) VALUES ($1, '{}', $1, $1, $2, $3)`, [
    sweep,
    2 * mazes,
    repeats,
  ]);
  // cell s * mazes + m: agent s on maze m (seed m + 1)
  await q(
    `INSERT INTO sweep_cells
     SELECT $1, s * $2 + m, 'cell-' || (s * $2 + m), e.agent, e.agent, e.model, g.generator, g.width, m + 1, '{}'
     FROM generate_series(0, 1) s, generate_series(0, $2 - 1) m, experiments e JOIN mazes g ON g.id = e.maze_id
     WHERE e.id = ($3::text[])[s + 1]`,
    [sweep, mazes, sources],
  );
  await q(
    `INSERT INTO experiments (id, agent, provider, model, prompt_version, agent_seed, maze_id, config,
       optimal_moves, status, goal_found, stop_reason, started_at, completed_at, position_x, position_y,
       turns_completed, actions_taken, tiles_seen, sweep_id, sweep_cell, sweep_repeat, sweep_attempt, trajectory_hash)
     SELECT $1 || '-' || lpad(i::text, 6, '0'), e.agent, e.provider, e.model, e.prompt_version, r, e.maze_id,
       e.config, $4::int / 2, 'completed', ok, CASE WHEN ok THEN 'goal_found' ELSE 'max_moves' END, e.started_at,
       e.completed_at, 1, 1, $4::int / 10, $4::int, 12, $1, cell, r, 1,
       CASE WHEN s = 0 THEN md5($1 || i) ELSE md5($1 || m) END
     FROM generate_series(0, $5::int - 1) i,
       LATERAL (SELECT i / $3 AS cell, i % $3 AS r) c,
       LATERAL (SELECT cell / $2 AS s, cell % $2 AS m) a,
       LATERAL (SELECT CASE WHEN s = 0 THEN i % 3 = 0 ELSE m % 4 <> 0 END AS ok) o,
       experiments e WHERE e.id = ($6::text[])[s + 1]`,
    [sweep, mazes, repeats, perRun, runs, sources],
  );
  await seedRunRows(db, sweep, runs * perRun, perRun);
  return runs;
}
