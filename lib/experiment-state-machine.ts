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
  DEFAULT_ORCHESTRATION,
  EXECUTION_ALREADY_EXISTS_ERRORS,
  INPUT_ERRORS,
  SFN_START_RETRY,
  STATES,
  type Orchestration,
  type TaskState,
} from '../core/machine/states.ts';
import { turnReserveSeconds } from '../core/machine/tasks.ts';
import { stateMachineLogs, tracingEnabled } from './observability.ts';
import { TurnStates } from './turn-states.ts';
import { TurnChunkMachine } from './turn-chunk-machine.ts';
import { runChunk } from './run-chunk.ts';

export interface ExperimentStateMachineProps {
  functions: Record<TaskState, IFunction>;
  /** Hard stop for one execution; the experiment's own max_duration_minutes normally ends it first. */
  executionTimeout?: Duration;
  /** A fixed name, so the machine's role can be allowed to start the machine itself (continue as new). */
  stateMachineName: string;
  /** Turns in chunks of Express executions (default) or each in this execution's history (states.ts). */
  orchestration?: Orchestration;
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
  /** The Express turn machine the chunks run on; absent with orchestration "standard". */
  readonly chunks?: TurnChunkMachine;
  private readonly states: TurnStates;
  /** FinalizeFailure, then ExperimentFailed: where every caught error goes. */
  private readonly finalizeFailure: sfn.Chain;

  constructor(scope: Construct, id: string, props: ExperimentStateMachineProps) {
    super(scope, id);
    const timeout = props.executionTimeout ?? Duration.hours(3);
    assertRoomForTurns(timeout);
    this.states = new TurnStates(this, props.functions);
    // FinalizeFailure is made first: every other state's errors go there
    this.finalizeFailure = this.failureEnd();
    this.states.onError = this.finalizeFailure;
    const execution = {
      startTime: sfn.JsonPath.stringAt('$$.Execution.StartTime'),
      timeoutSeconds: timeout.toSeconds(),
    };
    const start = this.startExperiment(execution);
    const checkProgress = this.states.checkProgress({ execution });
    const router = this.states.router(checkProgress);
    if ((props.orchestration ?? DEFAULT_ORCHESTRATION) === 'nested') {
      this.chunks = new TurnChunkMachine(this, 'Chunks', { functions: props.functions });
      const chunk = runChunk(this, {
        chunks: this.chunks.stateMachine,
        perTurn: router,
        onError: this.finalizeFailure,
      });
      this.decideAfterEachTurn(checkProgress, router, chunk);
      start.next(chunk.run);
    } else {
      this.decideAfterEachTurn(checkProgress, router);
      start.next(router);
    }
    this.stateMachine = new sfn.StateMachine(this, 'Machine', {
      stateMachineName: props.stateMachineName,
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromChainable(start),
      timeout,
      tracingEnabled: tracingEnabled(this),
      // ERROR unless the stack asks for ALL, without inputs and outputs (lib/observability.ts says why)
      logs: stateMachineLogs(this),
    });
    this.allowContinueAsNew(props.stateMachineName);
  }

  /** FinalizeFailure, then ExperimentFailed. */
  private failureEnd(): sfn.Chain {
    // The execution fails with the original error, so StartExecution callers see what went wrong.
    const failed = new sfn.Fail(this, STATES.ExperimentFailed, {
      stateName: STATES.ExperimentFailed,
      errorPath: '$.error.Error',
      causePath: '$.error.Cause',
    });
    return this.states
      .task(STATES.FinalizeFailure, {
        payload: sfn.TaskInput.fromObject({
          state: sfn.JsonPath.entirePayload,
          executionArn: sfn.JsonPath.executionId,
        }),
        resultPath: '$.finalized',
      })
      .next(failed);
  }

  /** StartExperiment, bad input ending in InputRefused; the execution's clock goes into the loop state. */
  private startExperiment(execution: Record<string, unknown>): tasks.LambdaInvoke {
    const start = this.states.task(STATES.StartExperiment, {
      payload: sfn.TaskInput.fromObject({
        request: sfn.JsonPath.entirePayload,
        executionArn: sfn.JsonPath.executionId,
        execution,
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
    return this.states.caught(start);
  }

  private finalize(state: TaskState): tasks.LambdaInvoke {
    return this.states.caught(this.states.task(state, { resultPath: '$.result' }));
  }

  /**
   * ConditionCheck after CheckProgress (and, nested, after each chunk): another turn here, another chunk, an end,
   * continue as new, or an outage's wait or failure.
   */
  private decideAfterEachTurn(
    checkProgress: tasks.LambdaInvoke,
    router: sfn.Choice,
    chunk?: { run: sfn.IChainable; loop: sfn.Pass; result: sfn.INextable },
  ): void {
    const continueLoop = this.states.continueLoop();
    const { outageWait, outageResume, outageFailed } = this.outageStates();
    const condition = new sfn.Choice(this, STATES.ConditionCheck, { stateName: STATES.ConditionCheck });
    // a chunk that failed hands back its error: finalized as a failure, as a Task's here would be
    if (chunk) condition.when(sfn.Condition.isPresent('$.error'), this.finalizeFailure);
    // Another turn first: nearly every turn takes it, and a Choice reads its Variable once per rule it tries.
    const on = (decision: string, next: sfn.IChainable) =>
      condition.when(sfn.Condition.stringEquals('$.progress.decision', decision), next);
    on('continue', continueLoop);
    if (chunk)
      on('hand_back', chunk.loop).when(sfn.Condition.stringEquals('$.progress.decision', 'per_turn'), continueLoop);
    on('success', this.finalize(STATES.FinalizeSuccess));
    on('timeout', this.finalize(STATES.FinalizeTimeout));
    on('stuck', this.finalize(STATES.FinalizeStuck));
    on('continue_as_new', this.continueAsNew());
    on('provider_wait', outageWait);
    on('provider_outage', outageFailed);
    condition.otherwise(continueLoop);
    // (wired in this order: the definition lists the states in the order of their transitions)
    checkProgress.next(condition);
    chunk?.result.next(condition);
    chunk?.loop.next(chunk.run);
    continueLoop.next(router);
    outageWait.next(outageResume);
    // the same turn again: in a new chunk when nested
    outageResume.next(chunk ? chunk.run : router);
    outageFailed.next(this.finalizeFailure);
  }

  /**
   * The provider is out: OutageWait what CheckProgress chose, then OutageResume the same turn; or OutageFailed once
   * waited as long as allowed. Wired by decideAfterEachTurn.
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
