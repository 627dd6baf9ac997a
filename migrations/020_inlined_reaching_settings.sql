-- The settings that do not reach a provider's agent, as one list (migration 011 kept them in setting_reaches), so
-- that reaching_settings is one expression. 011's reaching_settings aggregated jsonb_each(settings) filtered by
-- setting_reaches, a function Postgres cannot inline: it ran per row of sweep_runs as a function call of its own,
-- about 6 of the view's 12-14 ms for a sweep's 1,000 runs, and every sweep read evaluates the view (the report twice;
-- issue 32, item 1). `settings - text[]` drops the keys in one expression, which Postgres inlines. The lists and
-- their reasons are 011's, unchanged; test/reaching-settings.test.ts checks both functions answer as 011's did.
CREATE OR REPLACE FUNCTION unreached_settings(provider text) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY['prices', 'history_event_budget']
    || CASE WHEN provider = 'ollama' THEN ARRAY[]::text[] ELSE ARRAY['ollama'] END
    || CASE WHEN provider = 'bedrock' THEN ARRAY[]::text[] ELSE ARRAY['bedrock', 'context_windows'] END
    || CASE WHEN provider <> 'baseline' THEN ARRAY[]::text[] ELSE ARRAY['prompt_version', 'observation', 'memory',
         'memory_history_actions', 'memory_conversation_tokens', 'recall_tool', 'max_recall_actions',
         'recall_interval', 'context_policy', 'retry', 'rate_limits', 'temperature', 'top_p', 'max_output_tokens',
         'model_seed', 'strict_tool_calls'] END
$$;

CREATE OR REPLACE FUNCTION setting_reaches(provider text, setting text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT NOT (setting = ANY (unreached_settings(provider)))
$$;

CREATE OR REPLACE FUNCTION reaching_settings(provider text, settings jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(settings, '{}'::jsonb) - unreached_settings(provider)
$$;
