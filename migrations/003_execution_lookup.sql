-- The EventBridge finalizer looks experiments up by execution ARN.
CREATE INDEX experiments_execution_arns ON experiments USING gin (execution_arns);
