-- Provider parity and token accounting (issue 29, points 7, 8, 9 and 12).

-- Per model call:
--   truncated               the output cap cut the reply (Ollama done_reason "length", Bedrock stopReason
--                           "max_tokens"); null for calls logged before this column (backfilled from stop_reason).
--   reasoning_text          what the model returned as reasoning (Ollama message.thinking, Bedrock
--                           reasoningContent blocks); null when it returned none.
--   reasoning_tokens        the reasoning's tokens, ESTIMATED from its text (characters / 4, calibrated): neither
--                           provider reports them apart, both count them in output_tokens.
--   estimated_input_tokens  the context guard's estimate of the prompt in the provider's tokens: prompt_estimate
--                           (characters / 4) scaled by the run's calibration (experiments.token_calibration).
--   estimate_off            that estimate and the reported prompt tokens (input_tokens plus cache reads and writes)
--                           differ by more than 10% of the reported count; null without both.
ALTER TABLE llm_calls
  ADD COLUMN truncated boolean,
  ADD COLUMN reasoning_text text,
  ADD COLUMN reasoning_tokens integer,
  ADD COLUMN estimated_input_tokens integer,
  ADD COLUMN estimate_off boolean;

UPDATE llm_calls SET truncated = (stop_reason IN ('length', 'max_tokens')) WHERE stop_reason IS NOT NULL;

-- Per experiment:
--   provenance         where the answers came from, stored at the first turn: Ollama's server version, model
--                      digest, quantization, parameter size, template sha256 and the options sent (seed included);
--                      Bedrock's model or inference profile id, Region, inferenceConfig sent, and that Converse
--                      takes no seed. Null for baselines and for runs from before this migration.
--   token_calibration  provider prompt tokens per estimated token, from the run's first reported count.
--   price_known        for model runs: config.prices had the model (or its inference profile's model). With it,
--                      a null cost reads "unknown price" (false) or "no token counts reported" (true); zero cost
--                      is 0 with price_known true. Null for baselines (no model, nothing to price).
ALTER TABLE experiments
  ADD COLUMN provenance jsonb,
  ADD COLUMN token_calibration double precision,
  ADD COLUMN price_known boolean;

UPDATE experiments
SET price_known = coalesce(config -> 'prices' ? model
                           OR config -> 'prices' ? regexp_replace(model, '^(us|eu|apac|global|us-gov|ca|jp|au)\.', ''),
                           false)
WHERE provider <> 'baseline' AND model IS NOT NULL;

-- One row per experiment: what its model calls did, beside experiment_summary (a view of its own, like
-- experiment_prompt_cache, so it does not depend on that view's column list). text_tool_calls counts tool calls
-- recovered from reply text (parsed_from_text); strict_refused those of them refused under strict_tool_calls.
CREATE VIEW experiment_model_calls AS
SELECT
  e.id                                                     AS experiment_id,
  e.provider,
  e.model,
  e.price_known,
  e.token_calibration,
  e.provenance,
  coalesce((e.config ->> 'strict_tool_calls')::boolean, false) AS strict_tool_calls,
  coalesce(l.calls, 0)                                     AS llm_calls,
  coalesce(l.truncated_calls, 0)                           AS truncated_calls,
  coalesce(l.reasoning_calls, 0)                           AS reasoning_calls,
  l.reasoning_tokens,
  coalesce(l.estimate_off_calls, 0)                        AS estimate_off_calls,
  coalesce(a.text_tool_calls, 0)                           AS text_tool_calls,
  coalesce(a.strict_refused, 0)                            AS strict_refused
FROM experiments e
LEFT JOIN LATERAL (
  SELECT count(*)::int AS calls,
         (count(*) FILTER (WHERE truncated))::int AS truncated_calls,
         (count(*) FILTER (WHERE reasoning_text IS NOT NULL))::int AS reasoning_calls,
         sum(reasoning_tokens)::int AS reasoning_tokens,
         (count(*) FILTER (WHERE estimate_off))::int AS estimate_off_calls
  FROM llm_calls WHERE experiment_id = e.id
) l ON true
LEFT JOIN LATERAL (
  SELECT (count(*) FILTER (WHERE parsed_from_text))::int AS text_tool_calls,
         (count(*) FILTER (WHERE parsed_from_text AND outcome = 'invalid_arguments'
                           AND message LIKE '%not executed under strict_tool_calls'))::int AS strict_refused
  FROM actions WHERE experiment_id = e.id
) a ON true;
