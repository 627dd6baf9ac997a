// State names of the experiment machine. They are constants because they are
// the keys that bind each Task to its Lambda in CDK and to its in-process
// handler in the local runner.
import { fact } from '../../aws-facts/facts.ts';
import { ERROR_NAMES } from '../error-names.ts';
import { outageWaitSeconds } from '../engine/provider-outage.ts';

/** AWS's recommended Retry for Lambda's transient service exceptions (Step Functions best practices). */
const AWS_LAMBDA_RETRY = fact('sfn.lambda-service-exception-retry').value;

export const STATES = {
  StartExperiment: 'StartExperiment',
  ProviderRouter: 'ProviderRouter',
  InvokeBedrockAgent: 'InvokeBedrockAgent',
  InvokeOllamaAgent: 'InvokeOllamaAgent',
  InvokeOpenAIAgent: 'InvokeOpenAIAgent',
  InvokeBaselineAgent: 'InvokeBaselineAgent',
  CheckProgress: 'CheckProgress',
  ConditionCheck: 'ConditionCheck',
  ContinueLoop: 'ContinueLoop',
  FinalizeSuccess: 'FinalizeSuccess',
  FinalizeTimeout: 'FinalizeTimeout',
  FinalizeStuck: 'FinalizeStuck',
  FinalizeFailure: 'FinalizeFailure',
  ExperimentFailed: 'ExperimentFailed',
  InputRefused: 'InputRefused',
  ContinueAsNew: 'ContinueAsNew',
  ContinuedAsNew: 'ContinuedAsNew',
  /** A provider outage (engine/provider-outage.ts): the wait CheckProgress chose, then the same turn again. */
  OutageWait: 'OutageWait',
  OutageResume: 'OutageResume',
  /** The outage outlasted provider_outage_wait_minutes: the turn's error, with what was waited, to FinalizeFailure. */
  OutageFailed: 'OutageFailed',
  /**
   * Nested orchestration: the Standard execution runs its turns in chunks, each a synchronous Express execution of
   * the turn machine (RunChunk), and reads how each ended (ChunkEnded, ChunkResult); ChunkLoop starts the next.
   * ChunkDone ends a chunk, handing its loop state back.
   */
  RunChunk: 'RunChunk',
  ChunkEnded: 'ChunkEnded',
  ChunkResult: 'ChunkResult',
  ChunkLoop: 'ChunkLoop',
  ChunkDone: 'ChunkDone',
} as const;

/**
 * How the experiment machine runs its turns: `nested` (the default) in chunks of Express executions, `standard`
 * each turn in the Standard execution's history (`cdk deploy -c orchestration=standard`). docs/architecture.md.
 */
export const ORCHESTRATIONS = ['nested', 'standard'] as const;
export type Orchestration = (typeof ORCHESTRATIONS)[number];
export const DEFAULT_ORCHESTRATION: Orchestration = 'nested';

export const TASK_STATES = [
  STATES.StartExperiment,
  STATES.InvokeBedrockAgent,
  STATES.InvokeOllamaAgent,
  STATES.InvokeOpenAIAgent,
  STATES.InvokeBaselineAgent,
  STATES.CheckProgress,
  STATES.FinalizeSuccess,
  STATES.FinalizeTimeout,
  STATES.FinalizeStuck,
  STATES.FinalizeFailure,
] as const;
export type TaskState = (typeof TASK_STATES)[number];

/**
 * Errors a Lambda Task retries: the Lambda service's transient errors as "Handle Lambda service exceptions"
 * (Step Functions best practices) names them, Lambda.ClientExecutionTimeoutException among them, and our transient
 * typed errors. Lambda's throttling has a schedule of its own (LAMBDA_THROTTLE_RETRY). Everything else is caught and
 * finalized.
 */
export const TRANSIENT_ERRORS = [
  'Lambda.ClientExecutionTimeoutException',
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  ERROR_NAMES.databaseUnavailable,
];

/**
 * Lambda refusing an invocation because the account has no concurrency left. "When Lambda hits the maximum number of
 * invocations, the error is Lambda.TooManyRequestsException." ("Handle Lambda service exceptions", the page of
 * aws-facts: sfn.lambda-service-exception-retry)
 */
const LAMBDA_THROTTLE_ERRORS = ['Lambda.TooManyRequestsException'];

/**
 * A Lambda function stopped at its timeout, by each name AWS documents for it. Step Functions' "Handle Lambda service
 * exceptions" (the page of aws-facts: sfn.lambda-service-exception-retry): "Unhandled
 * errors in Lambda are reported as Lambda.Unknown in the error output. These include out-of-memory errors and function
 * timeouts." Lambda names Sandbox.Timedout for a timeout in the Init phase (aws-facts: lambda.init-timeout-error),
 * and users report newer runtimes putting it in an invoke timeout's payload too, which the integration then reports as
 * the Error. Both mean Lambda stopped the function. (States.Timeout is a Task's own TimeoutSeconds, which these Tasks
 * do not set.)
 */
export const FUNCTION_TIMEOUT_ERRORS: string[] = ['Lambda.Unknown', fact('lambda.init-timeout-error').value];

/** A model that stayed unavailable through the handler's own retries (ProviderTransientError). */
const PROVIDER_TRANSIENT_ERRORS: string[] = [ERROR_NAMES.providerTransient];
/** A turn that failed with these after its retries is an outage: CheckProgress decides to wait or to end the run. */
export const PROVIDER_OUTAGE_ERRORS: string[] = PROVIDER_TRANSIENT_ERRORS;

/** StartExperiment's refusals of bad input: thrown before anything is written, so there is nothing to finalize. */
export const INPUT_ERRORS: string[] = [ERROR_NAMES.invalidInput, ERROR_NAMES.mazeInput, ERROR_NAMES.valueTooLarge];

/**
 * The optimized states:startExecution integration's answer to a name already used ("StartExecution", Step Functions
 * API reference: ExecutionAlreadyExists once that execution closed or when the input differs), with the integration's
 * "StepFunctions." prefix and "Exception" suffix. For a continuation it means the hop was already made.
 */
export const EXECUTION_ALREADY_EXISTS = 'StepFunctions.ExecutionAlreadyExistsException';

/** Caught as "hop made": also the bare API code, as AWS's own example spells StepFunctions.ExecutionLimitExceeded. */
export const EXECUTION_ALREADY_EXISTS_ERRORS = [EXECUTION_ALREADY_EXISTS, 'StepFunctions.ExecutionAlreadyExists'];

/**
 * What a states:startExecution Task retries: the client's own failures, throttling and the running-executions quota.
 * Not States.TaskFailed, which would retry ExecutionAlreadyExists as well. AWS's "Start workflow executions from a
 * task state" page retries "StepFunctions.ExecutionLimitExceeded"; the integration names its other errors with an
 * "Exception" suffix, so both spellings are listed.
 */
const SFN_START_TRANSIENT_ERRORS = [
  'StepFunctions.SdkClientException',
  'StepFunctions.ThrottlingException',
  'StepFunctions.AWSStepFunctionsException',
  'StepFunctions.ExecutionLimitExceeded',
  'StepFunctions.ExecutionLimitExceededException',
];

/**
 * What RunChunk (aws-sdk:sfn:startSyncExecution) retries: an AWS SDK integration names an error "ServiceName.ErrorName"
 * in PascalCase (aws-facts: sfn.aws-sdk-error-names), so Step Functions' throttling and its client's own failures are
 * these. Retrying may start a second chunk while the first still runs; a turn commits once (store/turn-sql.ts).
 */
export const CHUNK_START_RETRY: RetrySchedule = {
  errors: ['Sfn.ThrottlingException', 'Sfn.SdkClientException', 'Sfn.SfnException'],
  intervalSeconds: 1,
  maxAttempts: 6,
  backoffRate: 2,
  maxDelaySeconds: 16,
};

/** A Retry schedule as ASL writes it; JitterStrategy FULL everywhere, so retries of many executions spread out. */
export interface RetrySchedule {
  errors: string[];
  intervalSeconds: number;
  maxAttempts: number;
  backoffRate: number;
  maxDelaySeconds?: number;
}

/** Lambda service hiccups pass in seconds: 2, 4, ... 64 s, about two minutes of waiting in all (AWS's Retry). */
export const LAMBDA_RETRY: RetrySchedule = { errors: TRANSIENT_ERRORS, ...AWS_LAMBDA_RETRY };

/**
 * A throttled invocation is ridden out, not failed. The schedule starts as AWS's Retry for Lambda service exceptions
 * (same page: "IntervalSeconds": 2, "BackoffRate": 2), capped at 2 minutes between tries (MaxDelaySeconds) with full
 * jitter, so many throttled experiments do not come back in step. A throttle lasts until another invocation of the
 * account ends, and a model turn may hold its slot up to its 900 s timeout: 13 tries wait up to 966 s in all (2, 4,
 * ... 64, then 120 s seven times), more than one such turn. The sweep's cap on MaxConcurrency
 * (core/sweeps/sweep-capacity.ts) keeps throttles rare; this is for what shares the account with a sweep.
 */
export const LAMBDA_THROTTLE_RETRY: RetrySchedule = {
  errors: LAMBDA_THROTTLE_ERRORS,
  intervalSeconds: AWS_LAMBDA_RETRY.intervalSeconds,
  maxAttempts: 13,
  backoffRate: AWS_LAMBDA_RETRY.backoffRate,
  maxDelaySeconds: 120,
};

/** The handler already retried the model with backoff; a longer outage gets a few more, slower tries. */
export const PROVIDER_RETRY: RetrySchedule = {
  errors: PROVIDER_TRANSIENT_ERRORS,
  intervalSeconds: 30,
  maxAttempts: 2,
  backoffRate: 2,
};

/**
 * Seconds from a failed try of a turn (the provider unavailable) to the next one at the latest, by the count of failed
 * tries at `waits` outage waits: PROVIDER_RETRY's retries (jittered below these), then the outage wait CheckProgress
 * chooses (engine/provider-outage.ts). The last entry holds for any later try.
 */
export function providerTrySchedule(waits: number): number[] {
  const retries = Array.from(
    { length: PROVIDER_RETRY.maxAttempts },
    (_, n) => PROVIDER_RETRY.intervalSeconds * PROVIDER_RETRY.backoffRate ** n,
  );
  return [...retries, outageWaitSeconds(waits)];
}

/**
 * A turn whose function Lambda stopped (at its timeout; Lambda.Unknown also covers running out of memory) runs once
 * more. That is safe: the stopped invocation runs no further, and a turn commits in one statement only while the
 * experiment is still at turn n-1 (store/turn-sql.ts), so the retry replays a turn that did commit or runs it anew
 * from the same state. Once: the turn's deadline (engine/turn-deadline.ts) ends every turn before its timeout, so a
 * second timeout is no accident; FinalizeFailure then marks the experiment failed (an error, not a navigation
 * failure) with the reason.
 */
export const TURN_TIMEOUT_RETRY: RetrySchedule = {
  errors: FUNCTION_TIMEOUT_ERRORS,
  intervalSeconds: 2,
  maxAttempts: 1,
  backoffRate: 2,
};

/**
 * A states:startExecution call (ContinueAsNew here; the sweep machine's RunExperiment must use it too): throttling
 * and the executions quota clear within a minute or so: 1, 2, 4, 8, 16, 16 s.
 */
export const SFN_START_RETRY: RetrySchedule = {
  errors: SFN_START_TRANSIENT_ERRORS,
  intervalSeconds: 1,
  maxAttempts: 6,
  backoffRate: 2,
  maxDelaySeconds: 16,
};

/** The most a schedule waits between its attempts in all (full jitter waits a random part of each interval). */
export function retryWaitSeconds(r: RetrySchedule): number {
  let total = 0;
  for (let k = 0; k < r.maxAttempts; k++)
    total += Math.min(r.intervalSeconds * r.backoffRate ** k, r.maxDelaySeconds ?? Infinity);
  return total;
}

/** A schedule as the Retry entry of an ASL state. */
export function aslRetry(r: RetrySchedule): Record<string, unknown> {
  return {
    ErrorEquals: r.errors,
    IntervalSeconds: r.intervalSeconds,
    MaxAttempts: r.maxAttempts,
    BackoffRate: r.backoffRate,
    ...(r.maxDelaySeconds === undefined ? {} : { MaxDelaySeconds: r.maxDelaySeconds }),
    JitterStrategy: 'FULL',
  };
}
