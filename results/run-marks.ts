// What a run's calls say of where its numbers come from (migrations 029, 031): whether a bundled simulator answered
// any of its calls (simulated), how many had their prompt cut to the server's context window, and how many the
// flight recorder answered instead of a server (a replay, a fork's prefix, the cache), with the run it repeats.
import type { Sql } from '../core/store/sql.ts';

export interface RunMarks {
  /** Any call of the run was answered by a bundled simulator (it announced itself); false for a baseline. */
  simulated: boolean;
  /** Calls whose prompt the server cut to its context window (not the output cut by its cap: truncated). */
  truncated_calls: number;
  /** Model requests answered from a recorded run (a replay or a fork's prefix), and by config.cache. */
  replayed_requests: number;
  cached_requests: number;
  /** The run it replays; the run it was forked from and the step after which it continues (else null). */
  replay_of: string | null;
  forked_from: string | null;
  fork_step: number | null;
}

/** The run's marks; null when there is no such experiment. */
export async function runMarksOf(db: Sql, experimentId: string): Promise<RunMarks | null> {
  const { rows } = await db.query<RunMarks>(
    `SELECT simulated, prompt_truncated_calls AS truncated_calls, replay_of, forked_from, fork_step,
       (SELECT count(*) FROM model_exchanges x WHERE x.experiment_id = e.id AND x.answered_by = 'replay')::int
         AS replayed_requests,
       (SELECT count(*) FROM model_exchanges x WHERE x.experiment_id = e.id AND x.answered_by = 'cache')::int
         AS cached_requests
     FROM experiments e WHERE id = $1`,
    [experimentId],
  );
  return rows[0] ?? null;
}

/**
 * Whether a sweep holds both simulated and real model runs (any attempt of any cell): then the statistics split by
 * `simulated` (reports/factors.ts). A run no model answered (a baseline, a run that failed before its first reply)
 * is neither, and splits nothing.
 */
export async function sweepMixesSimulated(db: Sql, sweepId: string): Promise<boolean> {
  const { rows } = await db.query<{ kinds: number }>(
    `SELECT count(DISTINCT e.simulated)::int AS kinds
     FROM experiments e JOIN experiment_totals k ON k.experiment_id = e.id
     WHERE e.sweep_id = $1 AND k.llm_calls > 0`,
    [sweepId],
  );
  return (rows[0]?.kinds ?? 0) > 1;
}
