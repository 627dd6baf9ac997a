// Runs' behaviour (reports/behaviour.ts) from what they wrote: their moves, mazes and vision read by the read model
// (results/run-moves.ts), the frontier baseline walked once per maze, vision and success rule however many runs
// share them, as far as they need.
import type { Sql } from '../core/store/sql.ts';
import type { Maze } from '../core/maze/maze.ts';
import { behaviourRunRows, mazesById, runTraces, type BehaviourRunRow, type RunTrace } from '../results/run-moves.ts';
import { runBehaviour, type RunBehaviour } from './behaviour.ts';
import { frontierWalk, type FrontierWalk } from './frontier-baseline.ts';

const rulesKey = (r: BehaviourRunRow) => `${r.maze_id}|${r.vision_range}|${r.see_through}|${r.success_rule}`;

/**
 * The frontier's walk for each maze and rules, walked once as far as its runs need (runBehaviour's RunInput.frontier):
 * the longest failed run's steps, or until the goal where a run found it.
 */
function frontierWalks(rows: BehaviourRunRow[], traces: Map<string, RunTrace>, mazes: Map<number, Maze>) {
  const needed = new Map<string, number>();
  for (const r of rows) {
    const steps = r.goal_found ? Infinity : traces.get(r.experiment_id)!.codes.length;
    needed.set(rulesKey(r), Math.max(needed.get(rulesKey(r)) ?? 0, steps));
  }
  const walks = new Map<string, FrontierWalk>();
  for (const r of rows) {
    if (walks.has(rulesKey(r))) continue;
    const rules = { visionRange: r.vision_range, seeThrough: r.see_through, successRule: r.success_rule };
    walks.set(rulesKey(r), frontierWalk(mazes.get(r.maze_id)!, rules, needed.get(rulesKey(r))));
  }
  return (r: BehaviourRunRow) => walks.get(rulesKey(r))!;
}

/** A run read for its behaviour: what the read model gave, and the behaviour counted from it. */
export interface LoadedRun {
  row: BehaviourRunRow;
  maze: Maze;
  trace: RunTrace;
  behaviour: RunBehaviour;
}

/** Each run of `ids` that exists (in id order), read and counted; runs that do not exist are left out. */
export async function loadRuns(db: Sql, ids: readonly string[]): Promise<LoadedRun[]> {
  if (ids.length === 0) return [];
  const [rows, traces] = await Promise.all([behaviourRunRows(db, ids), runTraces(db, ids)]);
  const mazes = await mazesById(
    db,
    rows.map((r) => r.maze_id),
  );
  const walkOf = frontierWalks(rows, traces, mazes);
  return rows.map((row) => {
    const [maze, trace] = [mazes.get(row.maze_id)!, traces.get(row.experiment_id)!];
    const behaviour = runBehaviour({ maze, trace, goalFound: row.goal_found, ended: row.ended, frontier: walkOf(row) });
    return { row, maze, trace, behaviour };
  });
}

/** Each run of `ids` that exists with its behaviour. */
export async function loadBehaviours(db: Sql, ids: readonly string[]): Promise<Map<string, RunBehaviour>> {
  return new Map((await loadRuns(db, ids)).map((r) => [r.row.experiment_id, r.behaviour]));
}
