-- Bedrock prompt caching (config.bedrock.prompt_caching): input read from and written to the cache, per model call
-- and summed per turn, as Bedrock reports them (usage.cacheReadInputTokens, usage.cacheWriteInputTokens). With
-- caching, input_tokens counts only the input neither read nor written, so a call's whole input is the sum of the
-- three. NULL where the provider reported none (Ollama, models or requests without caching). turns.cost_usd
-- already prices each kind at its own rate (config.prices: cache_read_per_mtok, cache_write_per_mtok).
ALTER TABLE llm_calls
  ADD COLUMN cache_read_input_tokens integer,
  ADD COLUMN cache_write_input_tokens integer;
ALTER TABLE turns
  ADD COLUMN cache_read_input_tokens integer,
  ADD COLUMN cache_write_input_tokens integer;

-- Per experiment, beside experiment_summary (which other migrations extend: a view of its own keeps this one
-- independent of their column lists): the cache tokens, the whole input, and the share of it read from the cache.
CREATE VIEW experiment_prompt_cache AS
SELECT e.id AS experiment_id, e.provider, e.model,
  (e.config -> 'bedrock' ->> 'prompt_caching')::boolean AS prompt_caching,
  t.input_tokens, t.cache_read_input_tokens, t.cache_write_input_tokens,
  t.input_tokens + coalesce(t.cache_read_input_tokens, 0) + coalesce(t.cache_write_input_tokens, 0)
                                                         AS total_input_tokens,
  round(coalesce(t.cache_read_input_tokens, 0)::numeric
        / nullif(t.input_tokens + coalesce(t.cache_read_input_tokens, 0) + coalesce(t.cache_write_input_tokens, 0), 0),
        4)                                               AS cache_read_share,
  t.cost_usd
FROM experiments e
LEFT JOIN LATERAL (
  SELECT sum(input_tokens) AS input_tokens, sum(cache_read_input_tokens) AS cache_read_input_tokens,
         sum(cache_write_input_tokens) AS cache_write_input_tokens, sum(cost_usd) AS cost_usd
  FROM turns WHERE experiment_id = e.id
) t ON true;
