// Which handler serves each Task state: the file under lambdas/handlers, the
// Lambda export CDK deploys, and the factory the local runner calls in-process.
// One table, so AWS and the laptop cannot drift apart.
import { STATES, type TaskState } from './states.ts';

export interface TaskBinding {
  file: string;
  lambdaExport: string;
  factoryExport: string;
  timeoutSeconds: number;
}

export const TASKS: Record<TaskState, TaskBinding> = {
  [STATES.StartExperiment]: {
    file: 'start-experiment.ts',
    lambdaExport: 'handler',
    factoryExport: 'startExperimentHandler',
    timeoutSeconds: 30,
  },
  [STATES.InvokeBaselineAgent]: {
    file: 'run-turn.ts',
    lambdaExport: 'handler',
    factoryExport: 'runTurnHandler',
    timeoutSeconds: 300,
  },
  [STATES.InvokeOllamaAgent]: {
    file: 'run-turn.ts',
    lambdaExport: 'handler',
    factoryExport: 'runTurnHandler',
    timeoutSeconds: 900,
  },
  [STATES.InvokeBedrockAgent]: {
    file: 'run-turn.ts',
    lambdaExport: 'handler',
    factoryExport: 'runTurnHandler',
    timeoutSeconds: 900,
  },
  [STATES.CheckProgress]: {
    file: 'check-progress.ts',
    lambdaExport: 'handler',
    factoryExport: 'checkProgressHandler',
    timeoutSeconds: 10,
  },
  [STATES.FinalizeSuccess]: {
    file: 'finalize.ts',
    lambdaExport: 'successHandler',
    factoryExport: 'finalizeSuccessHandler',
    timeoutSeconds: 30,
  },
  [STATES.FinalizeTimeout]: {
    file: 'finalize.ts',
    lambdaExport: 'timeoutHandler',
    factoryExport: 'finalizeTimeoutHandler',
    timeoutSeconds: 30,
  },
  [STATES.FinalizeStuck]: {
    file: 'finalize.ts',
    lambdaExport: 'stuckHandler',
    factoryExport: 'finalizeStuckHandler',
    timeoutSeconds: 30,
  },
  [STATES.FinalizeFailure]: {
    file: 'finalize.ts',
    lambdaExport: 'failureHandler',
    factoryExport: 'finalizeFailureHandler',
    timeoutSeconds: 30,
  },
};

export const HANDLERS_DIR = new URL('../lambdas/handlers/', import.meta.url);
