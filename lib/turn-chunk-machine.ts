// The turn machine of nested orchestration: an EXPRESS state machine that runs a chunk of turns (ProviderRouter ->
// Invoke*Agent -> CheckProgress -> ConditionCheck -> ContinueLoop) and ends (ChunkDone) at anything but another turn,
// its error at $.error if a state failed. The Standard experiment machine starts it and acts on how it ended.
import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { STATES, type TaskState } from '../core/machine/states.ts';
import { EXPRESS_MAX_SECONDS } from '../core/config/budgets.ts';
import { TurnStates } from './turn-states.ts';
import { stateMachineLogs, tracingEnabled } from './observability.ts';

export class TurnChunkMachine extends Construct {
  readonly stateMachine: sfn.StateMachine;

  constructor(scope: Construct, id: string, props: { functions: Record<TaskState, IFunction> }) {
    super(scope, id);
    const done = new sfn.Succeed(this, STATES.ChunkDone, { stateName: STATES.ChunkDone });
    const states = new TurnStates(this, props.functions);
    states.onError = done;
    // the Standard execution's clock (continue-as-new is its) and this chunk's start (a chunk ends before 5 minutes)
    const checkProgress = states.checkProgress({
      execution: sfn.JsonPath.objectAt('$.clock'),
      chunk: { startTime: sfn.JsonPath.stringAt('$$.Execution.StartTime') },
    });
    const router = states.router(checkProgress);
    const continueLoop = states.continueLoop();
    const condition = new sfn.Choice(this, STATES.ConditionCheck, { stateName: STATES.ConditionCheck })
      .when(sfn.Condition.stringEquals('$.progress.decision', 'continue'), continueLoop)
      .otherwise(done);
    checkProgress.next(condition);
    continueLoop.next(router);
    this.stateMachine = new sfn.StateMachine(this, 'Machine', {
      stateMachineType: sfn.StateMachineType.EXPRESS,
      definitionBody: sfn.DefinitionBody.fromChainable(router),
      timeout: Duration.seconds(EXPRESS_MAX_SECONDS),
      tracingEnabled: tracingEnabled(this),
      // an Express execution has no history but its logs (aws-facts: sfn.express-history)
      logs: stateMachineLogs(this),
    });
  }
}
