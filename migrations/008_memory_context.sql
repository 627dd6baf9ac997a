-- Memory modes and the context guard (issue 19). The carried conversation (config memory: conversation) and the
-- action history (memory: history) live in experiments.agent_memory (004), written with each turn in the turn's
-- one statement, so a retried Lambda resumes exactly what was committed; they are bounded in size by
-- memory_conversation_tokens and memory_history_actions (and a hard 1 MiB cap in lambdas/providers/llm/memory.ts).

-- Per model call: the context guard's estimate of the prompt (tokens, chars/4), the model's context window
-- (Ollama num_ctx, or the config.context_windows entry for Bedrock; null when unknown), and how many messages or
-- history entries it dropped to fit.
ALTER TABLE llm_calls
  ADD COLUMN prompt_estimate integer,
  ADD COLUMN context_window integer,
  ADD COLUMN context_trimmed integer,
  -- Ollama's /api/chat timings, in nanoseconds as it reports them (null for other providers).
  ADD COLUMN total_duration_ns bigint,
  ADD COLUMN load_duration_ns bigint,
  ADD COLUMN prompt_eval_count integer,
  ADD COLUMN prompt_eval_duration_ns bigint,
  ADD COLUMN eval_count integer,
  ADD COLUMN eval_duration_ns bigint;

-- One row per model call: the prompt tokens the provider reported next to the window. Ollama silently drops the
-- start of a prompt longer than num_ctx and then reports about num_ctx prompt tokens: at_window flags those calls.
CREATE VIEW context_usage AS
SELECT
  l.experiment_id,
  l.turn_number,
  l.call_index,
  e.agent                                          AS provider,
  e.model,
  e.config ->> 'memory'                            AS memory,
  l.input_tokens                                   AS prompt_tokens,
  l.prompt_estimate,
  l.context_window,
  l.context_trimmed,
  round(l.input_tokens::numeric / nullif(l.context_window, 0), 4) AS window_used,
  (e.agent = 'ollama' AND l.input_tokens >= l.context_window)     AS at_window,
  l.total_duration_ns,
  l.load_duration_ns,
  l.prompt_eval_count,
  l.prompt_eval_duration_ns,
  l.eval_count,
  l.eval_duration_ns,
  round(l.prompt_eval_count * 1e9 / nullif(l.prompt_eval_duration_ns, 0), 2) AS prompt_tokens_per_second,
  round(l.eval_count * 1e9 / nullif(l.eval_duration_ns, 0), 2)               AS eval_tokens_per_second
FROM llm_calls l
JOIN experiments e ON e.id = l.experiment_id;
