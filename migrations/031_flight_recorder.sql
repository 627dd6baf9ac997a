-- The flight recorder (core/providers/llm/recorded-model.ts): every model call's request and reply, so a run can be
-- replayed with no model server. Content-addressed: a part of a request (the sampling parameters, the system prompt,
-- the tool schema, one message) and a reply are each stored once, as canonical JSON text under its sha256, however
-- many calls send it; a request is the manifest of its parts' hashes, under a key over the provider, the model, the
-- version the server reported and those hashes. Each call lists its exchanges in order (a workflow step is one).
CREATE TABLE model_bodies (
  sha256  text PRIMARY KEY,
  body    text NOT NULL
);

CREATE TABLE model_requests (
  request_key  text PRIMARY KEY,
  manifest     jsonb NOT NULL
);

CREATE TABLE model_exchanges (
  experiment_id  text NOT NULL,
  turn_number    integer NOT NULL,
  call_index     integer NOT NULL,
  seq            integer NOT NULL,          -- order among the call's model requests (a workflow's steps)
  request_key    text NOT NULL,
  reply_sha256   text NOT NULL,
  answered_by    text NOT NULL CHECK (answered_by IN ('model', 'replay')),
  PRIMARY KEY (experiment_id, turn_number, call_index, seq),
  FOREIGN KEY (experiment_id, turn_number, call_index)
    REFERENCES llm_calls (experiment_id, turn_number, call_index) ON DELETE CASCADE
);
CREATE INDEX model_exchanges_by_request ON model_exchanges (request_key);

-- A replay names the run it replays (its trajectory hash must equal that run's); a fork, the run it continues and
-- the step after which it does (its steps up to that one are the parent's: ariadne fork).
ALTER TABLE experiments
  ADD COLUMN replay_of text REFERENCES experiments (id) ON DELETE SET NULL,
  ADD COLUMN forked_from text REFERENCES experiments (id) ON DELETE SET NULL,
  ADD COLUMN fork_step integer CHECK (fork_step > 0);
