-- Cut prompts and simulated runs (lambdas/providers/llm/prompt-cut.ts, simulators/announce.ts).
--
-- Per model call:
--   prompt_truncated  the server cut the PROMPT to its context window: the reported prompt tokens (input, cache
--                     reads and writes) reached the window (Ollama: prompt_eval_count >= options.num_ctx as sent; an
--                     OpenAI-compatible server: the same against config.context_windows, or finish_reason "length"
--                     with prompt and reply filling the window). Apart from `truncated` (migration 012), which is
--                     the OUTPUT cut by its cap. Null for calls logged before this column whose window or count is
--                     unknown.
--   simulator         which bundled simulator answered the call, as it announced itself (the x-ariadne-simulator
--                     response header: ollama, openai, bedrock); null for a server that announced none.
ALTER TABLE llm_calls
  ADD COLUMN prompt_truncated boolean,
  ADD COLUMN simulator text;

-- Per experiment, kept by each turn's statement (lambdas/store/turn-sql.ts) so lists and statistics read them with
-- the run:
--   simulated               any of the run's calls was answered by a bundled simulator
--   prompt_truncated_calls  the run's calls whose prompt was cut (llm_calls.prompt_truncated)
ALTER TABLE experiments
  ADD COLUMN simulated boolean NOT NULL DEFAULT false,
  ADD COLUMN prompt_truncated_calls integer NOT NULL DEFAULT 0;

-- Calls logged before: an Ollama call's reported prompt at its window (context_window is num_ctx for Ollama) was cut.
UPDATE llm_calls SET prompt_truncated = (prompt_eval_count >= context_window)
WHERE prompt_eval_count IS NOT NULL AND context_window IS NOT NULL;

UPDATE experiments e SET prompt_truncated_calls = c.n
FROM (SELECT experiment_id, count(*)::int AS n FROM llm_calls WHERE prompt_truncated GROUP BY experiment_id) c
WHERE c.experiment_id = e.id;

-- Runs before the announcement: the Ollama simulator reported the model family "sim" (no real model has it); the
-- other simulators left no mark in what was recorded, so their older runs stay unmarked.
UPDATE experiments SET simulated = true
WHERE provider = 'ollama' AND provenance ->> 'provider' = 'ollama' AND provenance ->> 'family' = 'sim';
