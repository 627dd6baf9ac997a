-- Budgets (issue 34, item 4; config.max_cost_usd and max_tokens, engine/turn.ts): what each run's model calls have
-- spent, kept by each turn's statement so a turn reads it with the experiment (no sum over its turns), and summed
-- by a sweep that has a budget of its own (the sweep file's budget:, kept in sweeps.spec).
--   spent_tokens    input, cache reads and writes, and output tokens, as the provider reported them
--   spent_cost_usd  their cost at the run's config.prices (0 while the model has no price)
ALTER TABLE experiments
  ADD COLUMN spent_tokens bigint NOT NULL DEFAULT 0,
  ADD COLUMN spent_cost_usd numeric NOT NULL DEFAULT 0;

UPDATE experiments e
SET spent_tokens = t.tokens, spent_cost_usd = t.cost
FROM (SELECT experiment_id,
             sum(coalesce(input_tokens, 0) + coalesce(output_tokens, 0) + coalesce(cache_read_input_tokens, 0)
                 + coalesce(cache_write_input_tokens, 0)) AS tokens,
             sum(coalesce(cost_usd, 0)) AS cost
      FROM turns GROUP BY experiment_id) t
WHERE t.experiment_id = e.id;

-- max_cost_usd and max_tokens bound what a model run spends: like the other model settings, they reach no
-- baseline. Migration 023's function with them added (reports/setting-reach.ts is the same list).
CREATE OR REPLACE FUNCTION unreached_settings(provider text) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY['prices', 'history_event_budget', 'provider_outage_wait_minutes']
    || CASE WHEN provider = 'ollama' THEN ARRAY[]::text[] ELSE ARRAY['ollama'] END
    || CASE WHEN provider = 'bedrock' THEN ARRAY[]::text[] ELSE ARRAY['bedrock'] END
    || CASE WHEN provider = 'openai' THEN ARRAY[]::text[] ELSE ARRAY['openai'] END
    || CASE WHEN provider IN ('bedrock', 'openai') THEN ARRAY[]::text[] ELSE ARRAY['context_windows'] END
    || CASE WHEN provider <> 'baseline' THEN ARRAY[]::text[] ELSE ARRAY['prompt_version', 'observation', 'memory',
         'memory_history_actions', 'memory_conversation_tokens', 'recall_tool', 'max_recall_actions',
         'recall_interval', 'context_policy', 'retry', 'rate_limits', 'temperature', 'top_p', 'max_output_tokens',
         'model_seed', 'strict_tool_calls', 'max_cost_usd', 'max_tokens'] END
$$;
