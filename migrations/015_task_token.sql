-- A sweep's task token kept with its run (issue 30): the EventBridge finalizer returned it from the execution's
-- input, which the status-change event omits when it is too large ("inputDetails": {"included": false}); the
-- token written here at start is found with the experiment whatever the event carries. Null for runs outside an
-- AWS sweep, and for runs started before this migration (their finalizer still reads the input).
ALTER TABLE experiments ADD COLUMN task_token text;
