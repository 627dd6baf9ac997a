// The sweep machine: RegisterSweep writes the sweep and its cells, then a
// Distributed Map starts the experiment machine once per run (StartExecution
// .sync:2, MaxConcurrency from the input, i.e. the sweep file), each child
// named by its experiment id. Starting a sweep again is harmless: a child
// whose name already ran fails with ExecutionAlreadyExists, which is caught
// as "already run", so finished runs are never repeated. Children report
// nothing back (results stay in Postgres), so the Map's output stays small.
import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { TRANSIENT_ERRORS } from '../state-machine/states.ts';

export const SWEEP_STATES = {
  RegisterSweep: 'RegisterSweep',
  RunExperiments: 'RunExperiments',
  RunExperiment: 'RunExperiment',
  AlreadyRun: 'AlreadyRun',
  SweepDone: 'SweepDone',
} as const;

export interface SweepStateMachineProps {
  registerFunction: IFunction;
  experiments: sfn.IStateMachine;
  stateMachineName: string;
}

export class SweepStateMachine extends Construct {
  readonly stateMachine: sfn.StateMachine;

  constructor(scope: Construct, id: string, props: SweepStateMachineProps) {
    super(scope, id);
    const register = new tasks.LambdaInvoke(this, SWEEP_STATES.RegisterSweep, {
      stateName: SWEEP_STATES.RegisterSweep,
      lambdaFunction: props.registerFunction,
      payload: sfn.TaskInput.fromObject({ 'sweep.$': '$.sweep' }),
      payloadResponseOnly: true,
      retryOnServiceExceptions: false,
      resultPath: '$.registered',
    });
    register.addRetry({
      errors: TRANSIENT_ERRORS,
      interval: Duration.seconds(2),
      maxAttempts: 6,
      backoffRate: 2,
      jitterStrategy: sfn.JitterType.FULL,
    });

    const run = new tasks.StepFunctionsStartExecution(this, SWEEP_STATES.RunExperiment, {
      stateName: SWEEP_STATES.RunExperiment,
      stateMachine: props.experiments,
      integrationPattern: sfn.IntegrationPattern.RUN_JOB,
      name: sfn.JsonPath.stringAt('$.name'),
      input: sfn.TaskInput.fromJsonPathAt('$.input'),
      // not associateWithParent: it adds a key to the input, which StartExperiment's strict schema refuses
      associateWithParent: false,
      resultPath: sfn.JsonPath.DISCARD,
    });
    run.addCatch(new sfn.Pass(this, SWEEP_STATES.AlreadyRun, { stateName: SWEEP_STATES.AlreadyRun }), {
      errors: ['StepFunctions.ExecutionAlreadyExistsException'],
      resultPath: sfn.JsonPath.DISCARD,
    });

    const map = new sfn.DistributedMap(this, SWEEP_STATES.RunExperiments, {
      stateName: SWEEP_STATES.RunExperiments,
      itemsPath: '$.runs',
      maxConcurrencyPath: '$.maxConcurrency',
      // a failed experiment is finalized in the database; the sweep goes on and reports the rest
      toleratedFailurePercentage: 100,
      resultPath: sfn.JsonPath.DISCARD,
      mapExecutionType: sfn.StateMachineType.STANDARD,
    });
    map.itemProcessor(run);

    this.stateMachine = new sfn.StateMachine(this, 'Machine', {
      stateMachineName: props.stateMachineName,
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromChainable(
        register.next(map).next(new sfn.Succeed(this, SWEEP_STATES.SweepDone, { stateName: SWEEP_STATES.SweepDone })),
      ),
      timeout: Duration.days(7),
      tracingEnabled: true,
      logs: {
        destination: new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH }),
        level: sfn.LogLevel.ALL,
        includeExecutionData: false,
      },
    });
  }
}
