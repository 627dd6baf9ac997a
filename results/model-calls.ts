// What the experiments row adds to the summary for an LLM run: its prompt text (a workflow's name is in it), whether
// its model has a price (an unknown price is "unknown", never $0), its provenance, and what its model calls did
// (experiment_model_calls, migration 012).
import type { Sql } from '../core/store/sql.ts';

export interface ModelCallCounts {
  truncated_calls: number;
  reasoning_calls: number;
  estimate_off_calls: number;
  text_tool_calls: number;
}

export interface ModelCallDetails extends ModelCallCounts {
  prompt_text: string | null;
  priced: boolean;
  provenance: Record<string, unknown> | null;
}

/** The run's model details; null when there is no such experiment. */
export async function modelCallDetails(db: Sql, experimentId: string): Promise<ModelCallDetails | null> {
  const { rows } = await db.query<ModelCallDetails>(
    // price_known is written with each turn (an inference profile priced as its model); coalesce for runs that
    // have no turn yet
    `SELECT e.prompt_text, coalesce(e.price_known, e.config -> 'prices' ? e.model, false) AS priced, e.provenance,
            m.truncated_calls, m.reasoning_calls, m.estimate_off_calls, m.text_tool_calls
     FROM experiments e JOIN experiment_model_calls m ON m.experiment_id = e.id WHERE e.id = $1`,
    [experimentId],
  );
  return rows[0] ?? null;
}
