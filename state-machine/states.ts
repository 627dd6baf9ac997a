// State names of the experiment machine. They are constants because they are
// the keys that bind each Task to its Lambda in CDK and to its in-process
// handler in the local runner.
export const STATES = {
  StartExperiment: 'StartExperiment',
  ProviderRouter: 'ProviderRouter',
  InvokeBedrockAgent: 'InvokeBedrockAgent',
  InvokeOllamaAgent: 'InvokeOllamaAgent',
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
} as const;

export const TASK_STATES = [
  STATES.StartExperiment,
  STATES.InvokeBedrockAgent,
  STATES.InvokeOllamaAgent,
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
 * (Step Functions best practices) names them, Lambda.ClientExecutionTimeoutException among them, Lambda's
 * throttling (Lambda.TooManyRequestsException), and our transient typed errors. Everything else is caught and
 * finalized.
 */
export const TRANSIENT_ERRORS = [
  'Lambda.ClientExecutionTimeoutException',
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
  'DatabaseUnavailableError',
];

/** A model that stayed unavailable through the handler's own retries (ProviderTransientError). */
const PROVIDER_TRANSIENT_ERRORS = ['ProviderTransientError'];

/** StartExperiment's refusals of bad input: thrown before anything is written, so there is nothing to finalize. */
export const INPUT_ERRORS = ['InvalidInputError', 'MazeInputError'];

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

/** A Retry schedule as ASL writes it; JitterStrategy FULL everywhere, so retries of many executions spread out. */
export interface RetrySchedule {
  errors: string[];
  intervalSeconds: number;
  maxAttempts: number;
  backoffRate: number;
  maxDelaySeconds?: number;
}

/** Lambda service hiccups pass in seconds: 2, 4, ... 64 s, about two minutes of waiting in all. */
export const LAMBDA_RETRY: RetrySchedule = {
  errors: TRANSIENT_ERRORS,
  intervalSeconds: 2,
  maxAttempts: 6,
  backoffRate: 2,
};

/** The handler already retried the model with backoff; a longer outage gets a few more, slower tries. */
export const PROVIDER_RETRY: RetrySchedule = {
  errors: PROVIDER_TRANSIENT_ERRORS,
  intervalSeconds: 30,
  maxAttempts: 2,
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
