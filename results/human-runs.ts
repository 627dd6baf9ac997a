// The games people played on a suite's mazes (agent human, migration 034): what a suite's human reference is made of
// (reports/human-reference.ts).
import type { Sql } from '../core/store/sql.ts';

/** One finished game on a maze of the suite. */
export interface HumanSuiteRun {
  experiment_id: string;
  player: string;
  /** The maze's index in the suite, and its content hash as played. */
  suite_maze: number;
  maze_hash: string;
  observation: string;
  status: string;
  goal_found: boolean;
  stop_reason: string | null;
  failure_reason: string | null;
  actions: number;
  /** Optimal moves / actions when the goal was found (experiment_summary's, to 4 decimals). */
  efficiency: number | null;
  started_at: Date;
}

/** Every finished game (not running) of agent human on the suite `ref`, each player's in the order played. */
export async function humanSuiteRuns(db: Sql, ref: string): Promise<HumanSuiteRun[]> {
  const { rows } = await db.query<HumanSuiteRun>(
    `SELECT e.id AS experiment_id, e.player, e.suite_maze, s.maze_hash, e.config ->> 'observation' AS observation,
            e.status, e.goal_found, e.stop_reason, e.failure_reason, e.actions_taken AS actions, s.efficiency,
            e.started_at
     FROM experiments e JOIN experiment_summary s ON s.experiment_id = e.id
     WHERE e.agent = 'human' AND e.suite = $1 AND e.status <> 'running'
     ORDER BY e.player, e.started_at, e.id`,
    [ref],
  );
  return rows;
}
