// What past runs of one model spent, for `ariadne sweep FILE --estimate` (reports/spend-estimate.ts): each ended run
// (not failed: an error is no measure of what a run costs) with its actions, optimum and tokens by kind.
import type { Sql } from '../core/store/sql.ts';

export interface PastRunSpend {
  actions_taken: number;
  optimal_moves: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_write_input_tokens: number;
}

/** The newest ended runs (at most `limit`) of an agent and model under an observation format. */
export async function pastRunSpend(
  db: Sql,
  agent: string,
  model: string,
  observation: string,
  limit = 500,
): Promise<PastRunSpend[]> {
  const { rows } = await db.query<PastRunSpend>(
    `SELECT e.actions_taken, e.optimal_moves,
            coalesce(sum(t.input_tokens), 0)::float8 AS input_tokens,
            coalesce(sum(t.output_tokens), 0)::float8 AS output_tokens,
            coalesce(sum(t.cache_read_input_tokens), 0)::float8 AS cache_read_input_tokens,
            coalesce(sum(t.cache_write_input_tokens), 0)::float8 AS cache_write_input_tokens
     FROM (SELECT id, actions_taken, optimal_moves FROM experiments
           WHERE agent = $1 AND model = $2 AND coalesce(config ->> 'observation', 'rays') = $3
             AND status IN ('completed', 'timeout', 'stuck') AND actions_taken > 0
           ORDER BY started_at DESC LIMIT $4) e
     JOIN turns t ON t.experiment_id = e.id
     GROUP BY e.id, e.actions_taken, e.optimal_moves`,
    [agent, model, observation, limit],
  );
  return rows.map((r) => ({
    actions_taken: Number(r.actions_taken),
    optimal_moves: Number(r.optimal_moves),
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
    cache_read_input_tokens: Number(r.cache_read_input_tokens),
    cache_write_input_tokens: Number(r.cache_write_input_tokens),
  }));
}
