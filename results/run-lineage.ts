// A run's lineage (migration 031), as the viewer's experiment page shows it: the run it replays, the run it was
// forked from and the step after which it continues, and the runs that replay or fork it.
import type { Sql } from '../core/store/sql.ts';

export interface RunLineage {
  replay_of: string | null;
  forked_from: string | null;
  /** The fork's steps up to this one are the parent's. */
  fork_step: number | null;
  /** The runs that replay this one, oldest first. */
  replays: string[];
  /** The runs forked from this one, by fork step. */
  forks: Array<{ experiment_id: string; fork_step: number }>;
}

/**
 * The run's lineage; null when there is no such run or it has none (no parent, no replay or fork of it). Its
 * replays and forks are found by the partial indexes on replay_of and forked_from (migration 031).
 */
export async function runLineage(db: Sql, experimentId: string): Promise<RunLineage | null> {
  const { rows } = await db.query<RunLineage>(
    `SELECT e.replay_of, e.forked_from, e.fork_step,
       coalesce((SELECT json_agg(c.id ORDER BY c.started_at, c.id) FROM experiments c
                  WHERE c.replay_of = e.id), '[]')
         AS replays,
       coalesce((SELECT json_agg(json_build_object('experiment_id', c.id, 'fork_step', c.fork_step)
                                 ORDER BY c.fork_step, c.started_at, c.id)
                 FROM experiments c WHERE c.forked_from = e.id), '[]') AS forks
     FROM experiments e WHERE e.id = $1`,
    [experimentId],
  );
  const row = rows[0];
  if (!row) return null;
  const none = !row.replay_of && !row.forked_from && row.replays.length === 0 && row.forks.length === 0;
  return none ? null : row;
}
