-- Every model call, as the provider reported it, written with its turn.
CREATE TABLE llm_calls (
  experiment_id       text NOT NULL,
  turn_number         integer NOT NULL,
  call_index          integer NOT NULL,          -- order of the call within the turn
  first_action_index  integer,                   -- actions.call_index of its first tool call
  input_tokens        integer,                   -- exactly as reported (Ollama prompt_eval_count, Bedrock usage.inputTokens)
  output_tokens       integer,                   -- (Ollama eval_count, Bedrock usage.outputTokens)
  latency_ms          integer NOT NULL,          -- the successful attempt's round trip
  stop_reason         text,                      -- Ollama done_reason, Bedrock stopReason
  assistant_text      text,
  tool_calls          jsonb NOT NULL,            -- [{name, arguments, parsedFromText}]
  retries             jsonb NOT NULL,            -- [{attempt, status, error, delay_ms}] before this reply
  PRIMARY KEY (experiment_id, turn_number, call_index),
  FOREIGN KEY (experiment_id, turn_number) REFERENCES turns (experiment_id, turn_number) ON DELETE CASCADE
);
