// What is running now: experiments in flight with their progress and cost so far, the ones that stopped reporting
// flagged with the reason, and a sweep's totals. The same SQL on every transport (the Sql port).
import type { Sql } from '../core/store/sql.ts';
import { LLM_TURN_TIMEOUT_SECONDS } from '../core/config/budgets.ts';
import { INTERRUPTED_SQL } from './interrupted.ts';

/**
 * A running experiment whose row has not changed for this long is stale: every turn updates it, and no turn may
 * take longer than the model turn's Lambda timeout; twice that leaves room for the Task's retries.
 */
export const STALE_AFTER_SECONDS = 2 * LLM_TURN_TIMEOUT_SECONDS;

export interface RunningExperiment {
  experiment_id: string;
  agent: string;
  model: string | null;
  sweep_id: string | null;
  turns: number;
  actions: number;
  tiles_seen: number;
  goal_found: boolean;
  started_at: Date;
  updated_at: Date;
  cost_usd: number | null;
  /** Its newest execution's ARN (continue-as-new starts more than one per experiment). */
  execution_arn: string | null;
  /** Why it looks stuck, if it does (no update for longer than any turn may take). */
  stale: string | null;
  /** How and when it was interrupted on purpose (Ctrl-C, SIGTERM), if it was: resumable, and never stale. */
  interrupted: string | null;
  /** While its provider is down (the next turn's tries failing): since when, and when the next try is due. */
  provider_down_since: Date | null;
  provider_next_try_at: Date | null;
}

export async function runningExperiments(db: Sql, now = new Date(), sweepId?: string): Promise<RunningExperiment[]> {
  const { rows } = await db.query<Omit<RunningExperiment, 'stale'>>(
    `SELECT e.id AS experiment_id, e.agent, e.model, e.sweep_id, e.turns_completed AS turns,
            e.actions_taken AS actions, e.tiles_seen, e.goal_found, e.started_at, e.updated_at,
            e.execution_arns[cardinality(e.execution_arns)] AS execution_arn,
            (SELECT k.cost_usd FROM experiment_totals k WHERE k.experiment_id = e.id)::float8 AS cost_usd,
            ${INTERRUPTED_SQL} AS interrupted,
            -- the outage is over once the turn its provider failed is committed
            CASE WHEN e.provider_down_turn = e.turns_completed + 1 THEN e.provider_down_since END
              AS provider_down_since,
            CASE WHEN e.provider_down_turn = e.turns_completed + 1 THEN e.provider_next_try_at END
              AS provider_next_try_at
     FROM experiments e
     WHERE e.status = 'running' AND ($1::text IS NULL OR e.sweep_id = $1)
     ORDER BY e.started_at`,
    [sweepId ?? null],
  );
  // a run waiting out an outage is due to show life at its next try, not before
  const lastSign = (r: Omit<RunningExperiment, 'stale'>) =>
    new Date(
      Math.max(
        new Date(r.updated_at).getTime(),
        r.provider_next_try_at ? new Date(r.provider_next_try_at).getTime() : 0,
      ),
    );
  return rows.map((r) => ({ ...r, stale: r.interrupted ? null : staleReason(lastSign(r), now) }));
}

/** Why a running experiment last updated at `updatedAt` looks stuck at `now`, or null if it does not. */
export function staleReason(updatedAt: Date, now: Date): string | null {
  const idle = Math.round((now.getTime() - updatedAt.getTime()) / 1000);
  return idle > STALE_AFTER_SECONDS
    ? `no turn recorded for ${minutes(idle)} (a turn takes at most ${minutes(LLM_TURN_TIMEOUT_SECONDS)})`
    : null;
}

/** Seconds as a person reads them: "45 s" up to two minutes, then minutes. */
export function minutes(seconds: number): string {
  return seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}

export interface SweepTotals {
  sweep_id: string;
  runs: number;
  started: number;
  running: number;
  completed: number;
  failed: number;
  goal_found: number;
  actions: number;
  cost_usd: number;
}

/** A sweep's totals over the latest attempt of each run; null when no sweep has that name. */
export async function sweepTotals(db: Sql, sweepId: string): Promise<SweepTotals | null> {
  const { rows } = await db.query<SweepTotals>(
    `SELECT s.id AS sweep_id, s.cells * s.repeats AS runs,
            count(r.experiment_id)::int AS started,
            count(*) FILTER (WHERE r.status = 'running')::int AS running,
            count(*) FILTER (WHERE r.status IN ('completed', 'timeout'))::int AS completed,
            count(*) FILTER (WHERE r.status = 'failed')::int AS failed,
            count(*) FILTER (WHERE r.goal_found)::int AS goal_found,
            coalesce(sum(r.actions), 0)::int AS actions,
            coalesce(sum(r.cost_usd), 0)::float8 AS cost_usd
     FROM sweeps s LEFT JOIN sweep_runs r ON r.sweep_id = s.id
     WHERE s.id = $1
     GROUP BY s.id, s.cells, s.repeats`,
    [sweepId],
  );
  return rows[0] ?? null;
}
