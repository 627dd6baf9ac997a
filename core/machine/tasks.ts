// Which handler serves each Task state: the file under functions, the
// Lambda export CDK deploys, and the factory the local runner calls in-process.
// One table, so AWS and the laptop cannot drift apart. Timeouts come from the
// named budgets in core/config/budgets.ts.
import {
  LAMBDA_RETRY,
  LAMBDA_THROTTLE_RETRY,
  retryWaitSeconds,
  SFN_START_RETRY,
  STATES,
  TURN_TIMEOUT_RETRY,
  type TaskState,
} from './states.ts';
import {
  BASELINE_TURN_TIMEOUT_SECONDS,
  CHECK_PROGRESS_TIMEOUT_SECONDS,
  FINALIZE_TIMEOUT_SECONDS,
  LLM_TURN_TIMEOUT_SECONDS,
  START_EXPERIMENT_TIMEOUT_SECONDS,
} from '../config/budgets.ts';

export interface TaskBinding {
  file: string;
  lambdaExport: string;
  factoryExport: string;
  timeoutSeconds: number;
  /** Whether the handler reaches the database: its timeout must then cover the database's retry budget. */
  database: boolean;
}

export const TASKS: Record<TaskState, TaskBinding> = {
  [STATES.StartExperiment]: {
    file: 'start-experiment.ts',
    lambdaExport: 'handler',
    factoryExport: 'startExperimentHandler',
    timeoutSeconds: START_EXPERIMENT_TIMEOUT_SECONDS,
    database: true,
  },
  [STATES.InvokeBaselineAgent]: {
    file: 'run-turn.ts',
    lambdaExport: 'handler',
    factoryExport: 'runTurnHandler',
    timeoutSeconds: BASELINE_TURN_TIMEOUT_SECONDS,
    database: true,
  },
  [STATES.InvokeOllamaAgent]: {
    file: 'run-turn.ts',
    lambdaExport: 'handler',
    factoryExport: 'runTurnHandler',
    timeoutSeconds: LLM_TURN_TIMEOUT_SECONDS,
    database: true,
  },
  [STATES.InvokeOpenAIAgent]: {
    file: 'run-turn.ts',
    lambdaExport: 'handler',
    factoryExport: 'runTurnHandler',
    timeoutSeconds: LLM_TURN_TIMEOUT_SECONDS,
    database: true,
  },
  [STATES.InvokeBedrockAgent]: {
    file: 'run-turn.ts',
    lambdaExport: 'handler',
    factoryExport: 'runTurnHandler',
    timeoutSeconds: LLM_TURN_TIMEOUT_SECONDS,
    database: true,
  },
  [STATES.CheckProgress]: {
    file: 'check-progress.ts',
    lambdaExport: 'handler',
    factoryExport: 'checkProgressHandler',
    timeoutSeconds: CHECK_PROGRESS_TIMEOUT_SECONDS,
    database: false,
  },
  [STATES.FinalizeSuccess]: {
    file: 'finalize.ts',
    lambdaExport: 'successHandler',
    factoryExport: 'finalizeSuccessHandler',
    timeoutSeconds: FINALIZE_TIMEOUT_SECONDS,
    database: true,
  },
  [STATES.FinalizeTimeout]: {
    file: 'finalize.ts',
    lambdaExport: 'timeoutHandler',
    factoryExport: 'finalizeTimeoutHandler',
    timeoutSeconds: FINALIZE_TIMEOUT_SECONDS,
    database: true,
  },
  [STATES.FinalizeStuck]: {
    file: 'finalize.ts',
    lambdaExport: 'stuckHandler',
    factoryExport: 'finalizeStuckHandler',
    timeoutSeconds: FINALIZE_TIMEOUT_SECONDS,
    database: true,
  },
  [STATES.FinalizeFailure]: {
    file: 'finalize.ts',
    lambdaExport: 'failureHandler',
    factoryExport: 'finalizeFailureHandler',
    timeoutSeconds: FINALIZE_TIMEOUT_SECONDS,
    database: true,
  },
};

export const HANDLERS_DIR = new URL('../../functions/', import.meta.url);

/** The Task state that runs each provider's turns. */
export const INVOKE_STATE = {
  bedrock: STATES.InvokeBedrockAgent,
  ollama: STATES.InvokeOllamaAgent,
  openai: STATES.InvokeOpenAIAgent,
  baseline: STATES.InvokeBaselineAgent,
} as const;

/** The timeout of the function that runs a provider's turns: what a turn has when no Lambda context says. */
export function turnTimeoutSeconds(provider: keyof typeof INVOKE_STATE): number {
  return TASKS[INVOKE_STATE[provider]].timeoutSeconds;
}

/**
 * The time an execution must still have to run one more turn and hand over: the turn's Lambda at its timeout with
 * its Lambda retries' waits (a throttled account's too: LAMBDA_THROTTLE_RETRY) and its one run again after a timeout
 * (TURN_TIMEOUT_RETRY), CheckProgress likewise without that, and the hop's retry waits. (A model that stays down
 * through the slower ProviderTransientError retries can still outlast it; the execution then times out and the
 * failure handler finalizes the experiment.)
 */
export function turnReserveSeconds(provider: keyof typeof INVOKE_STATE): number {
  // from constants only: worked out once per provider (CheckProgress asks every turn)
  let seconds = reserveSeconds.get(provider);
  if (seconds === undefined) reserveSeconds.set(provider, (seconds = worstTurnSeconds(provider)));
  return seconds;
}
const reserveSeconds = new Map<keyof typeof INVOKE_STATE, number>();

function worstTurnSeconds(provider: keyof typeof INVOKE_STATE): number {
  const step = (state: TaskState) =>
    TASKS[state].timeoutSeconds + retryWaitSeconds(LAMBDA_RETRY) + retryWaitSeconds(LAMBDA_THROTTLE_RETRY);
  const timedOutAgain =
    TURN_TIMEOUT_RETRY.maxAttempts * turnTimeoutSeconds(provider) + retryWaitSeconds(TURN_TIMEOUT_RETRY);
  return step(INVOKE_STATE[provider]) + timedOutAgain + step(STATES.CheckProgress) + retryWaitSeconds(SFN_START_RETRY);
}
