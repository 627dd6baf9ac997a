-- The OpenAI-compatible provider (issue 34, item 1; lambdas/providers/llm/openai-model.ts).
--
-- Per model call:
--   reported_reasoning_tokens  of output_tokens, the reasoning tokens as the provider reported them (OpenAI
--                              usage.completion_tokens_details.reasoning_tokens); null where the provider reports
--                              none apart (Ollama, Bedrock: reasoning_tokens is then the only figure, estimated from
--                              the reasoning text). OpenAI's own API returns no reasoning text: reasoning_tokens is
--                              then null and this column holds what the model spent.
ALTER TABLE llm_calls ADD COLUMN reported_reasoning_tokens integer;

-- experiments.provider 'openai': its agents read the openai section, and context_windows (by model id, as Bedrock's);
-- no other provider reads openai.*. Migration 022's function with openai added (reports/setting-reach.ts is the same
-- list).
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
         'model_seed', 'strict_tool_calls'] END
$$;
