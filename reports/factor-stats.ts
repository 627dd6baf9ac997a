// A sweep's statistics by the factors named, as flat rows (one per group: the factor values, then the counts and
// rates of reports/sweep-statistics.ts, which defines them). For callers that want a table row per group.
import type { Sql } from '../core/store/sql.ts';
import { sweepStatistics, type GroupStatistics } from './sweep-statistics.ts';

export interface FactorRow {
  /** The group's value of each factor, by factor name ('n/a' where a setting does not reach the agent). */
  [factor: string]: unknown;
  n: number;
  successes: number;
  n_independent: number;
  errors: number;
  /** Every attempt of the group's runs; errored_attempts: those that ended in error, retried or not. */
  attempts: number;
  errored_attempts: number;
  running: number;
  success_rate: number | null;
  success_low95: number | null;
  success_high95: number | null;
  mean_efficiency: number | null;
  mean_actions: number | null;
  tokens_per_experiment: number | null;
  /** Input, cache read and write, and output tokens of every answered call of every attempt. */
  tokens: number;
  cost_usd: number | null;
}

/** A group as one flat row: its factor values, then its counts and rates. */
export function factorRow(g: GroupStatistics): FactorRow {
  return {
    ...g.factors,
    n: g.n,
    successes: g.successes,
    n_independent: g.independent,
    errors: g.errors,
    attempts: g.attempts,
    errored_attempts: g.erroredAttempts,
    running: g.running,
    success_rate: g.success.rate,
    success_low95: g.success.wilson.low,
    success_high95: g.success.wilson.high,
    mean_efficiency: g.efficiency.mean,
    mean_actions: g.meanActions,
    tokens_per_experiment: g.tokensPerExperiment,
    tokens: g.tokens,
    cost_usd: g.costUsd,
  };
}

export async function factorStats(db: Sql, sweepId: string, factors: string[]): Promise<FactorRow[]> {
  return (await sweepStatistics(db, sweepId, { by: factors })).groups.map(factorRow);
}
