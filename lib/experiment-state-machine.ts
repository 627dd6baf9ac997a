// The experiment state machine, one turn per loop: StartExperiment -> ProviderRouter -> Invoke*Agent -> CheckProgress
// -> ConditionCheck -> ContinueLoop | Finalize{Success,Timeout,Stuck} | ContinueAsNew; every Task retries transient
// errors and catches the rest into FinalizeFailure; a provider outage loops OutageWait -> OutageResume or ends
// OutageFailed. JSONPath only: the local runner executes this very definition.
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import {
  aslRetry,
  EXECUTION_ALREADY_EXISTS_ERRORS,
  INPUT_ERRORS,
  LAMBDA_RETRY,
  LAMBDA_THROTTLE_RETRY,
  PROVIDER_OUTAGE_ERRORS,
  PROVIDER_RETRY,
  SFN_START_RETRY,
  STATES,
  TURN_TIMEOUT_RETRY,
  type RetrySchedule,
  type TaskState,
} from '../core/machine/states.ts';
import { turnReserveSeconds } from '../core/machine/tasks.ts';
import { stateMachineLogs, tracingEnabled } from './observability.ts';

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

export interface ExperimentStateMachineProps {
  functions: Record<TaskState, IFunction>;
  /** Hard stop for one execution; the experiment's own max_duration_minutes normally ends it first. */
  executionTimeout?: Duration;
  /** A fixed name, so the machine's role can be allowed to start the machine itself (continue as new). */
  stateMachineName: string;
}

/** An execution must have room for at least one turn before it hands over (continue as new on elapsed time). */
function assertRoomForTurns(timeout: Duration): void {
  const reserve = Math.max(...(['bedrock', 'ollama', 'openai', 'baseline'] as const).map(turnReserveSeconds));
  if (timeout.toSeconds() <= 2 * reserve)
    throw new Error(
      `executionTimeout ${timeout.toSeconds()} s leaves no room for turns: one turn may take ${reserve} s; ` +
        `give at least ${Math.ceil((2 * reserve) / 60) + 1} minutes`,
    );
}

export class ExperimentStateMachine extends Construct {
  readonly stateMachine: sfn.StateMachine;
  private readonly functions: Record<TaskState, IFunction>;
  /** FinalizeFailure, then ExperimentFailed: where every caught error goes. */
  private readonly finalizeFailure: sfn.Chain;

  constructor(scope: Construct, id: string, props: ExperimentStateMachineProps) {
    super(scope, id);
    this.functions = props.functions;
    const timeout = props.executionTimeout ?? Duration.hours(3);
    assertRoomForTurns(timeout);
    this.finalizeFailure = this.failureEnd();
    const start = this.startExperiment();
    const checkProgress = this.checkProgress(timeout);
    const router = this.decideAfterEachTurn(checkProgress);
    this.routeTurnsByProvider(router, checkProgress);
    this.stateMachine = new sfn.StateMachine(this, 'Machine', {
      stateMachineName: props.stateMachineName,
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromChainable(start.next(router)),
      timeout,
      tracingEnabled: tracingEnabled(this),
      // ERROR unless the stack asks for ALL, without inputs and outputs (lib/observability.ts says why)
      logs: stateMachineLogs(this),
    });
    this.allowContinueAsNew(props.stateMachineName);
  }

  /** A Lambda task of one state, with the Lambda retries every task has. */
  private task(state: TaskState, opts: Partial<tasks.LambdaInvokeProps> = {}): tasks.LambdaInvoke {
    const t = new tasks.LambdaInvoke(this, state, {
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

  /** Any error of the task is caught into FinalizeFailure. */
  private caught<T extends tasks.LambdaInvoke>(t: T): T {
    t.addCatch(this.finalizeFailure, { errors: ['States.ALL'], resultPath: '$.error' });
    return t;
  }

  /** FinalizeFailure, then ExperimentFailed. */
  private failureEnd(): sfn.Chain {
    // The execution fails with the original error, so StartExecution callers see what went wrong.
    const failed = new sfn.Fail(this, STATES.ExperimentFailed, {
      stateName: STATES.ExperimentFailed,
      errorPath: '$.error.Error',
      causePath: '$.error.Cause',
    });
    return this.task(STATES.FinalizeFailure, {
      payload: sfn.TaskInput.fromObject({ state: sfn.JsonPath.entirePayload, executionArn: sfn.JsonPath.executionId }),
      resultPath: '$.finalized',
    }).next(failed);
  }

  /** StartExperiment, bad input ending in InputRefused. */
  private startExperiment(): tasks.LambdaInvoke {
    const start = this.task(STATES.StartExperiment, {
      payload: sfn.TaskInput.fromObject({
        request: sfn.JsonPath.entirePayload,
        executionArn: sfn.JsonPath.executionId,
      }),
    });
    // Bad input is refused before anything is written, whatever its shape: the error replaces the state
    // (no ResultPath: the ASL default "$"; aws-local-stepfunctions mishandles an explicit "$"), so even an
    // input that is not an object (where "$.error" cannot be set) ends with its error.
    start.addCatch(
      new sfn.Fail(this, STATES.InputRefused, {
        stateName: STATES.InputRefused,
        errorPath: '$.Error',
        causePath: '$.Cause',
      }),
      {
        errors: INPUT_ERRORS,
      },
    );
    return this.caught(start);
  }

  /** CheckProgress: the execution's clock goes along, so it can hand over before the execution times out. */
  private checkProgress(timeout: Duration): tasks.LambdaInvoke {
    return this.caught(
      this.task(STATES.CheckProgress, {
        payload: sfn.TaskInput.fromObject({
          state: sfn.JsonPath.entirePayload,
          execution: {
            startTime: sfn.JsonPath.stringAt('$$.Execution.StartTime'),
            timeoutSeconds: timeout.toSeconds(),
          },
        }),
        resultPath: '$.progress',
      }),
    );
  }

  /**
   * ConditionCheck after CheckProgress: another turn (through the returned ProviderRouter), an end, continue as
   * new, or an outage's wait or failure.
   */
  private decideAfterEachTurn(checkProgress: tasks.LambdaInvoke): sfn.Choice {
    const finalizeSuccess = this.caught(this.task(STATES.FinalizeSuccess, { resultPath: '$.result' }));
    const finalizeTimeout = this.caught(this.task(STATES.FinalizeTimeout, { resultPath: '$.result' }));
    const finalizeStuck = this.caught(this.task(STATES.FinalizeStuck, { resultPath: '$.result' }));

    const router = new sfn.Choice(this, STATES.ProviderRouter, { stateName: STATES.ProviderRouter });
    // The next turn's loop state, as CheckProgress built it (handlers/check-progress.ts nextLoopState): the turn's
    // results and errors stay behind, so they do not pile up in the payload.
    const continueLoop = new sfn.Pass(this, STATES.ContinueLoop, {
      stateName: STATES.ContinueLoop,
      inputPath: '$.progress.next',
    });
    const { outageWait, outageResume, outageFailed } = this.outageStates();
    const continueAsNew = this.continueAsNew();
    // Another turn first: nearly every turn takes it, and a Choice reads its Variable once per rule it tries.
    const condition = new sfn.Choice(this, STATES.ConditionCheck, { stateName: STATES.ConditionCheck })
      .when(sfn.Condition.stringEquals('$.progress.decision', 'continue'), continueLoop)
      .when(sfn.Condition.stringEquals('$.progress.decision', 'success'), finalizeSuccess)
      .when(sfn.Condition.stringEquals('$.progress.decision', 'timeout'), finalizeTimeout)
      .when(sfn.Condition.stringEquals('$.progress.decision', 'stuck'), finalizeStuck)
      .when(sfn.Condition.stringEquals('$.progress.decision', 'continue_as_new'), continueAsNew)
      .when(sfn.Condition.stringEquals('$.progress.decision', 'provider_wait'), outageWait)
      .when(sfn.Condition.stringEquals('$.progress.decision', 'provider_outage'), outageFailed)
      .otherwise(continueLoop);
    // (wired in this order: the definition lists the states in the order of their transitions)
    checkProgress.next(condition);
    continueLoop.next(router);
    outageWait.next(outageResume);
    outageResume.next(router);
    outageFailed.next(this.finalizeFailure);
    return router;
  }

  /**
   * The provider is out: OutageWait what CheckProgress chose, then OutageResume the same turn (back to the
   * router); or OutageFailed once waited as long as allowed. Wired by decideAfterEachTurn.
   */
  private outageStates(): { outageWait: sfn.Wait; outageResume: sfn.Pass; outageFailed: sfn.Pass } {
    // The provider is out: wait what CheckProgress chose, then try the same turn again, with the waits counted.
    const outageWait = new sfn.Wait(this, STATES.OutageWait, {
      stateName: STATES.OutageWait,
      time: sfn.WaitTime.secondsPath('$.progress.waitSeconds'),
    });
    // the same turn again, its waits counted (CheckProgress's next loop state)
    const outageResume = new sfn.Pass(this, STATES.OutageResume, {
      stateName: STATES.OutageResume,
      inputPath: '$.progress.next',
    });
    // Waited as long as provider_outage_wait_minutes allows: the turn's own error, with what was waited, as the cause.
    const outageFailed = new sfn.Pass(this, STATES.OutageFailed, {
      stateName: STATES.OutageFailed,
      parameters: { 'Error.$': '$.outageError.Error', 'Cause.$': '$.progress.detail' },
      resultPath: '$.error',
    });
    return { outageWait, outageResume, outageFailed };
  }

  /** ContinueAsNew, then ContinuedAsNew. */
  private continueAsNew(): sfn.CustomState {
    // Continue as new: start this same machine ($$.StateMachine.Id) at the next turn, then end this
    // execution. The name is the experiment and turn, so a retried start cannot fork the experiment: a start
    // whose name is taken (ExecutionAlreadyExists, "StartExecution" in the Step Functions API reference) means
    // the hop was made (by an earlier try whose answer was lost), so this execution ends as continued, never
    // failed while the next one runs on. Only transient errors are retried.
    const continueAsNew = new sfn.CustomState(this, STATES.ContinueAsNew, {
      stateJson: {
        Type: 'Task',
        Resource: 'arn:aws:states:::states:startExecution',
        Parameters: {
          'StateMachineArn.$': '$$.StateMachine.Id',
          // CheckProgress names the next execution and its first turn: the next turn (`{id}-t{n+1}`), or, when an
          // outage's wait does not fit this execution, the same turn again (`{id}-t{n}-w{waits}`)
          'Name.$': '$.progress.continuation.name',
          Input: {
            resume: {
              'experimentId.$': '$.experimentId',
              'llmProvider.$': '$.llmProvider',
              'startedAt.$': '$.startedAt',
              'limits.$': '$.limits',
              'turnNumber.$': '$.progress.continuation.turnNumber',
              'taskToken.$': '$.taskToken',
              'outage.$': '$.progress.continuation.outage',
            },
            'AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID.$': '$$.Execution.Id',
          },
        },
        ResultPath: '$.continuedAs',
        Retry: [aslRetry(SFN_START_RETRY)],
      },
    });
    const continued = new sfn.Succeed(this, STATES.ContinuedAsNew, { stateName: STATES.ContinuedAsNew });
    continueAsNew.addCatch(continued, { errors: EXECUTION_ALREADY_EXISTS_ERRORS, resultPath: '$.continuedAs' });
    continueAsNew.addCatch(this.finalizeFailure, { errors: ['States.ALL'], resultPath: '$.error' });
    continueAsNew.next(continued);
    return continueAsNew;
  }

  /**
   * A turn of one provider: a turn Lambda stopped at its timeout (Lambda.Unknown) runs once more, then is caught:
   * states.ts says why. A provider still failing after those retries is an outage: CheckProgress decides
   * (engine/provider-outage.ts) whether the run waits (OutageWait, then the same turn again) or ends failed
   * (OutageFailed).
   */
  private turn(state: TaskState, checkProgress: tasks.LambdaInvoke): tasks.LambdaInvoke {
    const t = this.task(state, { resultPath: '$.turn' });
    t.addRetry(retryProps(PROVIDER_RETRY));
    t.addRetry(retryProps(TURN_TIMEOUT_RETRY));
    t.addCatch(checkProgress, { errors: PROVIDER_OUTAGE_ERRORS, resultPath: '$.outageError' });
    return this.caught(t);
  }

  /** ProviderRouter: each provider's turn, then CheckProgress. */
  private routeTurnsByProvider(router: sfn.Choice, checkProgress: tasks.LambdaInvoke): void {
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
  }

  /**
   * Continue as new starts this very machine. Its ARN is built from the fixed name, not referenced, which would
   * make the role depend on the machine that depends on the role.
   */
  private allowContinueAsNew(stateMachineName: string): void {
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({
        actions: ['states:StartExecution'],
        resources: [
          Stack.of(this).formatArn({
            service: 'states',
            resource: 'stateMachine',
            resourceName: stateMachineName,
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        ],
      }),
    );
  }
}
