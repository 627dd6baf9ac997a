-- Transcript search (results/transcript-search.ts) by trigram index: each index is on exactly the text one source
-- of the search matches (its expression, and for a partial one its WHERE), so `text ILIKE '%...%'` over that
-- expression is answered from the index instead of a sequential scan of every action (issue 32, item 2).
-- pg_trgm ships with Postgres (the embedded server's share/extension) and Aurora PostgreSQL lists it among its
-- supported extensions (https://docs.aws.amazon.com/AmazonRDS/latest/AuroraPostgreSQLReleaseNotes/
-- AuroraPostgreSQL.Extensions.html: "Following, you can find version information for each extension supported by
-- currently available Amazon Aurora PostgreSQL releases."; pg_trgm is in each version's table). It is a trusted
-- extension since PostgreSQL 13 (pg_trgm.control: trusted = true): a user who is not superuser may create it with
-- CREATE privilege on the database, and when it is already installed IF NOT EXISTS only notes so, needing none.
-- It goes into `public`, not the session's schema: an extension is one per database, and installed in one test's
-- schema it would be invisible to the next and dropped with the first (DROP SCHEMA ... CASCADE would take every
-- schema's indexes with it). The migration lock (migrate.ts) is one per database, so two starters do not race here.
-- The operator class is found where the extension is, which is `public` unless someone installed it elsewhere first.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

DO $$
DECLARE ops text := (SELECT format('%I.gin_trgm_ops', n.nspname) FROM pg_extension x
                     JOIN pg_namespace n ON n.oid = x.extnamespace WHERE x.extname = 'pg_trgm');
BEGIN
  -- reply: the model's text
  EXECUTE format('CREATE INDEX llm_calls_reply_search ON llm_calls USING gin (assistant_text %s)', ops);
  -- reasoning: argued for each move, in its column or in the tool call's arguments
  EXECUTE format('CREATE INDEX actions_reasoning_search ON actions USING gin '
                 '((coalesce(reasoning, arguments ->> ''reasoning'')) %s)', ops);
  -- tool: the name called
  EXECUTE format('CREATE INDEX actions_tool_search ON actions USING gin (tool %s)', ops);
  -- error: a run's failure, a model call's retried errors, a refused tool call's message
  EXECUTE format('CREATE INDEX experiments_failure_search ON experiments USING gin (failure_reason %s)', ops);
  EXECUTE format('CREATE INDEX llm_calls_retries_search ON llm_calls USING gin ((retries::text) %s) '
                 'WHERE jsonb_array_length(retries) > 0', ops);
  EXECUTE format('CREATE INDEX actions_refusal_search ON actions USING gin ((tool || '': '' || message) %s) '
                 'WHERE outcome IN (''unknown_tool'', ''invalid_arguments'')', ops);
END
$$;
