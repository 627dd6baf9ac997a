// The turn loop's states, built alike in the Standard experiment machine and in its Express chunk machine: each Task
// with the Lambda retries every task has, each turn with its provider's retries, ProviderRouter and CheckProgress.
// Errors a state does not retry go to `onError` (set before the first Task is caught) with the error at $.error.
import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import {
  LAMBDA_RETRY,
  LAMBDA_THROTTLE_RETRY,
  PROVIDER_OUTAGE_ERRORS,
  PROVIDER_RETRY,
  STATES,
  TURN_TIMEOUT_RETRY,
  type RetrySchedule,
  type TaskState,
} from '../core/machine/states.ts';

/**
 * A retry schedule of states.ts as CDK's Retry props (full jitter, so many executions' retries spread out); the
 * sweep machine's RunExperiment takes SFN_START_RETRY through it.
 * @public
 */
export function retryProps(r: RetrySchedule): sfn.RetryProps {
  return {
    errors: r.errors,
    interval: Duration.seconds(r.intervalSeconds),
    maxAttempts: r.maxAttempts,
    backoffRate: r.backoffRate,
    ...(r.maxDelaySeconds === undefined ? {} : { maxDelay: Duration.seconds(r.maxDelaySeconds) }),
    jitterStrategy: sfn.JitterType.FULL,
  };
}

export class TurnStates {
  /** Where caught errors go: the machine's failure end, which is itself made of a Task of these. */
  onError?: sfn.IChainable;

  constructor(
    private readonly scope: Construct,
    private readonly functions: Record<TaskState, IFunction>,
  ) {}

  /** A Lambda task of one state, with the Lambda retries every task has. */
  task(state: TaskState, opts: Partial<tasks.LambdaInvokeProps> = {}): tasks.LambdaInvoke {
    const t = new tasks.LambdaInvoke(this.scope, state, {
      stateName: state,
      lambdaFunction: this.functions[state],
      payloadResponseOnly: true,
      retryOnServiceExceptions: false,
      ...opts,
    });
    t.addRetry(retryProps(LAMBDA_RETRY));
    // the account out of concurrency: waited out (states.ts says how long and why), never finalized as a failure
    t.addRetry(retryProps(LAMBDA_THROTTLE_RETRY));
    return t;
  }

  /** Any error of the task is caught into onError. */
  caught<T extends tasks.LambdaInvoke>(t: T): T {
    if (!this.onError) throw new Error('TurnStates.onError is set before a Task is caught');
    t.addCatch(this.onError, { errors: ['States.ALL'], resultPath: '$.error' });
    return t;
  }

  /** CheckProgress with the clocks it decides by (the execution's; a chunk's too), its answer at $.progress. */
  checkProgress(clocks: Record<string, unknown>): tasks.LambdaInvoke {
    return this.caught(
      this.task(STATES.CheckProgress, {
        payload: sfn.TaskInput.fromObject({ state: sfn.JsonPath.entirePayload, ...clocks }),
        resultPath: '$.progress',
      }),
    );
  }

  /**
   * A turn of one provider: a turn Lambda stopped at its timeout (Lambda.Unknown) runs once more, then is caught:
   * states.ts says why. A provider still failing after those retries is an outage: CheckProgress decides
   * (engine/provider-outage.ts) whether the run waits or ends failed.
   */
  private turn(state: TaskState, checkProgress: tasks.LambdaInvoke): tasks.LambdaInvoke {
    const t = this.task(state, { resultPath: '$.turn' });
    t.addRetry(retryProps(PROVIDER_RETRY));
    t.addRetry(retryProps(TURN_TIMEOUT_RETRY));
    t.addCatch(checkProgress, { errors: PROVIDER_OUTAGE_ERRORS, resultPath: '$.outageError' });
    return this.caught(t);
  }

  /** ProviderRouter: each provider's turn, then CheckProgress. */
  router(checkProgress: tasks.LambdaInvoke): sfn.Choice {
    const router = new sfn.Choice(this.scope, STATES.ProviderRouter, { stateName: STATES.ProviderRouter });
    // The baseline first: its turns are the cheapest (no model call), so the rules read before it show most; a model
    // turn's one more rule is nothing beside its call.
    const baseline = this.turn(STATES.InvokeBaselineAgent, checkProgress).next(checkProgress);
    router.when(sfn.Condition.stringEquals('$.llmProvider', 'baseline'), baseline);
    for (const [provider, state] of [
      ['bedrock', STATES.InvokeBedrockAgent],
      ['ollama', STATES.InvokeOllamaAgent],
      ['openai', STATES.InvokeOpenAIAgent],
    ] as const) {
      router.when(
        sfn.Condition.stringEquals('$.llmProvider', provider),
        this.turn(state, checkProgress).next(checkProgress),
      );
    }
    router.otherwise(baseline);
    return router;
  }

  /** ContinueLoop: the next turn's loop state, as CheckProgress built it, back to the router. */
  continueLoop(): sfn.Pass {
    // (handlers/check-progress.ts nextLoopState): the turn's results and errors stay behind, so they do not pile up
    return new sfn.Pass(this.scope, STATES.ContinueLoop, {
      stateName: STATES.ContinueLoop,
      inputPath: '$.progress.next',
    });
  }
}
