// What the local runners read back before they act (state-machine/local-sweep.ts, local-experiment.ts): each run of
// a sweep's latest attempt, to plan which to start, resume, retry or skip, and one experiment's state, to resume it
// or to count its outcome.
import type { Sql } from '../core/store/sql.ts';
import type { ExperimentStatus } from '../core/engine/store.ts';
import type { ExperimentConfig } from '../core/config/experiment-config.ts';

/** The latest attempt of one run (cell and repeat) of a sweep. */
export interface SweepAttempt {
  sweep_cell: number;
  sweep_repeat: number;
  sweep_attempt: number;
  id: string;
  status: string;
  goal_found: boolean;
}

/** The latest attempt of each run of the sweep that has one, by cell and repeat. */
export async function latestSweepAttempts(db: Sql, sweepId: string): Promise<SweepAttempt[]> {
  const { rows } = await db.query<SweepAttempt>(
    `SELECT DISTINCT ON (sweep_cell, sweep_repeat) sweep_cell, sweep_repeat, sweep_attempt, id, status, goal_found
     FROM experiments WHERE sweep_id = $1 ORDER BY sweep_cell, sweep_repeat, sweep_attempt DESC`,
    [sweepId],
  );
  return rows;
}

/** What a sweep's runs have spent in all (every attempt: a failed one spent too), as budgets count it. */
export async function sweepSpend(db: Sql, sweepId: string): Promise<{ tokens: number; costUsd: number }> {
  const { rows } = await db.query<{ tokens: number | null; cost: number | null }>(
    'SELECT sum(spent_tokens) AS tokens, sum(spent_cost_usd) AS cost FROM experiments WHERE sweep_id = $1',
    [sweepId],
  );
  return { tokens: Number(rows[0]?.tokens ?? 0), costUsd: Number(rows[0]?.cost ?? 0) };
}

export interface ExperimentState {
  agent: string;
  status: ExperimentStatus;
  config: ExperimentConfig;
  goal_found: boolean;
}

/** The experiment's agent, status, config snapshot and outcome; null when there is none by that id. */
export async function experimentState(db: Sql, experimentId: string): Promise<ExperimentState | null> {
  const { rows } = await db.query<ExperimentState>(
    'SELECT agent, status, config, goal_found FROM experiments WHERE id = $1',
    [experimentId],
  );
  return rows[0] ?? null;
}

/** The maze suite a sweep named (suite: in its file), or null. */
export async function sweepSuite(db: Sql, sweepId: string): Promise<string | null> {
  const { rows } = await db.query<{ suite: string | null }>(
    "SELECT spec ->> 'suite' AS suite FROM sweeps WHERE id = $1",
    [sweepId],
  );
  return rows[0]?.suite ?? null;
}

/** The spec a sweep was registered with (its file as loaded), or null for no such sweep. */
export async function sweepSpec(db: Sql, sweepId: string): Promise<Record<string, unknown> | null> {
  const { rows } = await db.query<{ spec: unknown }>('SELECT spec FROM sweeps WHERE id = $1', [sweepId]);
  if (rows.length === 0) return null;
  const spec = rows[0].spec;
  // jsonb arrives as text through the Data API
  return (typeof spec === 'string' ? JSON.parse(spec) : spec) as Record<string, unknown>;
}
