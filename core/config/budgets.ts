// Time and history budgets, each a named number with its reason, so that what retries inside a function fits the
// function's timeout, and what a function takes fits the execution that calls it
// (aws-facts: lambda.max-timeout-seconds, sfn.max-history-events; DatabaseResumingException, RDS Data API reference).
import { fact } from '../../aws-facts/facts.ts';

/** Lambda stops a function at its timeout, at most 900 seconds ("Configure Lambda function timeout"). */
const LAMBDA_MAX_TIMEOUT_SECONDS = fact('lambda.max-timeout-seconds').value;

/**
 * How long the database transport keeps retrying before it gives up: a paused Aurora Serverless v2 cluster answers
 * DatabaseResumingException for ~15 s while it resumes. The Data API transport's retryBudgetMs default is this.
 */
export const DATABASE_RETRY_BUDGET_MS = 40_000;

/** A database-touching function's own work beyond waiting for the database: cold start, secret reads, its queries. */
export const DATABASE_WORK_MARGIN_MS = 20_000;

/** A model turn may wait long on a slow model: the Lambda maximum. */
export const LLM_TURN_TIMEOUT_SECONDS = LAMBDA_MAX_TIMEOUT_SECONDS;

/** A baseline turn is computation and one database commit: far less than this. */
export const BASELINE_TURN_TIMEOUT_SECONDS = 300;

/** StartExperiment: the database budget, its margin, and up to 30 s to generate and solve the largest maze. */
export const START_EXPERIMENT_TIMEOUT_SECONDS = (DATABASE_RETRY_BUDGET_MS + DATABASE_WORK_MARGIN_MS) / 1000 + 30;

/** A finalizer: the database budget, its margin, and the final status write with its summary read. */
export const FINALIZE_TIMEOUT_SECONDS = (DATABASE_RETRY_BUDGET_MS + DATABASE_WORK_MARGIN_MS) / 1000 + 30;

/** RegisterSweep: the database budget, its margin, and writing a sweep's cells (thousands of rows at most). */
export const REGISTER_SWEEP_TIMEOUT_SECONDS = (DATABASE_RETRY_BUDGET_MS + DATABASE_WORK_MARGIN_MS) / 1000 + 30;

/** CheckProgress is arithmetic on its input; it never opens the database, so it needs no database budget. */
export const CHECK_PROGRESS_TIMEOUT_SECONDS = 10;

/**
 * What a model turn's calls may take: its Lambda's timeout less the database budget and margin (the turn loads
 * its context and commits through the database in the same invocation).
 */
export const MODEL_CALL_BUDGET_MS =
  LLM_TURN_TIMEOUT_SECONDS * 1000 - DATABASE_RETRY_BUDGET_MS - DATABASE_WORK_MARGIN_MS;

/**
 * What a turn keeps back from its invocation's remaining time (context.getRemainingTimeInMillis) when it sets its
 * deadline (handlers/run-turn.ts): after its last model call it still commits through the database, which may be
 * resuming from pause (the retry budget) and has its own work (the margin), the same reserve MODEL_CALL_BUDGET_MS
 * keeps. A turn that stops its model calls this early commits before Lambda stops it at its timeout.
 */
export const TURN_COMMIT_MARGIN_MS = DATABASE_RETRY_BUDGET_MS + DATABASE_WORK_MARGIN_MS;

/** A Standard execution fails at 25,000 history events ("Step Functions service quotas"). */
export const HISTORY_EVENT_QUOTA = fact('sfn.max-history-events').value;

/** History events of a Task state: entered, scheduled, started, succeeded, exited. */
const TASK_EVENTS = 5;

/** History events of a Pass or Choice state: entered, exited. */
const FLOW_EVENTS = 2;

/** One turn: ProviderRouter (Choice), an Invoke Task, CheckProgress (Task), ConditionCheck (Choice), ContinueLoop. */
export const TURN_EVENTS = 2 * TASK_EVENTS + 3 * FLOW_EVENTS;

/** Before the first turn: ExecutionStarted and the StartExperiment Task. */
const START_EVENTS = 1 + TASK_EVENTS;

/**
 * Events kept free of turns: retried Tasks (3 events a retry: scheduled, started, failed) and the ending, a hop
 * (ContinueAsNew with its retries, Succeed) or a finalizer with its retries.
 */
export const HISTORY_RESERVE_EVENTS = 1_000;

/** Events this execution has used after `turns` turns, by the estimate above (retries are in the reserve). */
export const estimatedHistoryEvents = (turns: number): number => START_EVENTS + turns * TURN_EVENTS;

/**
 * A chunk of turns runs in an Express execution, which Step Functions stops at 5 minutes (aws-facts:
 * sfn.express-max-execution-seconds). The chunk hands back once its elapsed time, twice its slowest turn and this
 * margin (the hand-back's own CheckProgress and ChunkDone) would reach that limit.
 */
export const EXPRESS_MAX_SECONDS = fact('sfn.express-max-execution-seconds').value;
export const CHUNK_MARGIN_SECONDS = 30;

/**
 * A turn slower than this leaves a chunk room for fewer than three turns: the run's turns then go one by one in the
 * Standard execution, whose turn functions may run to Lambda's limit (LLM_TURN_TIMEOUT_SECONDS).
 */
export const PER_TURN_ABOVE_SECONDS = (EXPRESS_MAX_SECONDS - CHUNK_MARGIN_SECONDS) / 3;
