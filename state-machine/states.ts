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
 * Errors a Task retries: Lambda service hiccups and our transient typed
 * errors. Everything else is caught and finalized.
 */
export const TRANSIENT_ERRORS = [
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
  'DatabaseUnavailableError',
];

/** A model that stayed unavailable through the handler's own retries (ProviderTransientError). */
export const PROVIDER_TRANSIENT_ERRORS = ['ProviderTransientError'];

/** StartExperiment's refusals of bad input: thrown before anything is written, so there is nothing to finalize. */
export const INPUT_ERRORS = ['InvalidInputError', 'MazeInputError'];
