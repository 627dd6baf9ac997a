-- Provider outages waited out, not failed (issue 33, item 2; lambdas/engine/provider-outage.ts): a turn whose model
-- stayed unavailable through its retries is tried again after waits of 15 s, 30 s, ... up to 5 min, for at most
-- provider_outage_wait_minutes in all. Each turn records what it waited before the try that committed it.
--   provider_waits         waits before it (0: the provider answered at the first try's retries)
--   provider_wait_seconds  their seconds in all (not counted in the run's max_duration_minutes)
ALTER TABLE turns
  ADD COLUMN provider_waits integer NOT NULL DEFAULT 0,
  ADD COLUMN provider_wait_seconds integer NOT NULL DEFAULT 0;

-- provider_outage_wait_minutes decides what a run survives, not what its agent sees or does (a turn tried again is
-- the same turn): like history_event_budget it reaches no agent, so the statistics never split by it
-- (reports/setting-reach.ts is the same list). Migration 020's function, with the setting added.
CREATE OR REPLACE FUNCTION unreached_settings(provider text) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY['prices', 'history_event_budget', 'provider_outage_wait_minutes']
    || CASE WHEN provider = 'ollama' THEN ARRAY[]::text[] ELSE ARRAY['ollama'] END
    || CASE WHEN provider = 'bedrock' THEN ARRAY[]::text[] ELSE ARRAY['bedrock', 'context_windows'] END
    || CASE WHEN provider <> 'baseline' THEN ARRAY[]::text[] ELSE ARRAY['prompt_version', 'observation', 'memory',
         'memory_history_actions', 'memory_conversation_tokens', 'recall_tool', 'max_recall_actions',
         'recall_interval', 'context_policy', 'retry', 'rate_limits', 'temperature', 'top_p', 'max_output_tokens',
         'model_seed', 'strict_tool_calls'] END
$$;
