// The Ariadne stack: handler Lambdas, the experiment and sweep state machines,
// and the database. Serverless for real: nothing bills by the hour
// while no experiment runs (bench/idle-cost.ts prices the template).
import {
  AspectPriority,
  Aspects,
  CfnDeletionPolicy,
  CfnOutput,
  CfnResource,
  Duration,
  RemovalPolicy,
  Stack,
  type StackProps,
} from 'aws-cdk-lib';
import { FlowLogDestination, FlowLogTrafficType, type IVpc, SubnetType, Vpc } from 'aws-cdk-lib/aws-ec2';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Function as LambdaFunction, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { DATABASE_NAME, ExperimentDatabase } from './database.ts';
import { acknowledgeNagFindings } from './nag-acknowledgements.ts';
import { AriadneParameters } from './parameters.ts';
import { OUTPUT_KEYS } from './stack-outputs.ts';
import { Monitoring } from './monitoring.ts';
import { STATES, type TaskState } from '../core/machine/states.ts';
import type { Construct } from 'constructs';
import { HandlerFunctions, handlerFunction } from './handler-functions.ts';
import { configureObservability, LOG_RETENTION, type StateMachineLogLevel } from './observability.ts';
import { ExperimentStateMachine } from './experiment-state-machine.ts';
import type { Orchestration } from '../core/machine/states.ts';
import { sendTaskSuccessStatement, SweepStateMachine } from './sweep-state-machine.ts';
import { FailureHandling } from './failure-handling.ts';
import { TASKS } from '../core/machine/tasks.ts';
import { REGISTER_SWEEP_TIMEOUT_SECONDS } from '../core/config/budgets.ts';
import { bedrockInvokeStatements } from './bedrock.ts';
import { SECRET_OF_PROVIDER } from '../core/config/secrets.ts';

export interface AriadneStackProps extends StackProps {
  /** Environment passed to every handler (added to the database settings). */
  handlerEnvironment?: Record<string, string>;
  /** Parameter Store prefix of all Ariadne settings. */
  parameterPrefix?: string;
  /**
   * The Bedrock models experiments may call (InvokeModel is allowed on these only): model ids
   * ("amazon.nova-lite-v1:0", called in the stack's Region) and cross-Region inference profile ids
   * ("us.anthropic...", "eu.", "apac.", "global.", ...; see lib/bedrock.ts).
   */
  bedrockModelIds?: string[];
  /**
   * The Regions the inference profiles route to (their foundation models are granted there);
   * default: per profile prefix, PROFILE_REGIONS in lib/bedrock.ts.
   */
  bedrockRegions?: string[];
  /** The customer managed KMS key ARN of the SecureStrings under <prefix>-secrets; default: AWS managed aws/ssm. */
  parametersKmsKeyArn?: string;
  /**
   * Put the database into this existing VPC (it needs isolated or private subnets in two AZs);
   * default: a new VPC of isolated subnets only. No Lambda runs in it.
   */
  vpcId?: string;
  /**
   * Hard limit of one execution; keep it above max_duration_minutes so
   * experiments end by their own rule. Default 180.
   */
  executionTimeoutMinutes?: number;
  /** Minutes without connections before the database pauses (0 ACUs); 5 (default) to 1440. */
  databaseAutoPauseMinutes?: number;
  /** The database's maximum capacity in ACUs; default 4 (lib/database.ts says why). */
  databaseMaxCapacity?: number;
  /**
   * `cdk destroy` removes the database too: cluster, credentials, no deletion protection, no final
   * snapshot. Default false: the cluster, its secret and its network are kept (the data stays readable).
   */
  removeData?: boolean;
  /** A CloudWatch dashboard ($3/month beyond an account's 3 free ones); default false. The alarms are always made. */
  dashboard?: boolean;
  /** Active X-Ray tracing on every function and both state machines; default false (lib/observability.ts says why). */
  tracing?: boolean;
  /** What the state machines log to CloudWatch Logs; default ERROR (ALL adds every state transition). */
  stateMachineLogLevel?: StateMachineLogLevel;
  /** Turns in chunks of Express executions (default "nested") or each in the Standard history ("standard"). */
  orchestration?: Orchestration;
}

// Active Claude models that offer a global cross-Region inference profile: current Claude models are served on
// demand through inference profiles, and a global profile works from any commercial source Region (Bedrock user
// guide, "Global cross-Region inference"). Each is Active in core/config/model-table.ts (its row names the page
// and date): Sonnet 5.5 is Anthropic's current Sonnet (Sonnet 4.6 is Legacy there since 2026-11), Haiku 4.5 is
// Active on its AWS model card. A study that must keep inference in one geography deploys with
// -c bedrockModelIds=us.anthropic.claude-sonnet-5-5 (or another geography's profile of a model).
export const DEFAULT_BEDROCK_MODELS = [
  'global.anthropic.claude-sonnet-5-5',
  'global.anthropic.claude-haiku-4-5-20251001-v1:0',
];

export class AriadneStack extends Stack {
  readonly experiments: ExperimentStateMachine;
  readonly sweeps: SweepStateMachine;

  constructor(scope: Construct, id: string, props: AriadneStackProps = {}) {
    super(scope, id, props);
    // Before any function or state machine: each reads these when it is made.
    configureObservability(this, { tracing: props.tracing, stateMachineLogLevel: props.stateMachineLogLevel });
    const prefix = props.parameterPrefix ?? '/ariadne';
    const database = new ExperimentDatabase(this, 'Database', {
      vpc: this.databaseVpc(props),
      autoPause:
        props.databaseAutoPauseMinutes === undefined ? undefined : Duration.minutes(props.databaseAutoPauseMinutes),
      maxCapacity: props.databaseMaxCapacity,
      removeData: props.removeData,
    });
    const environment = { PARAMETER_PREFIX: prefix, ...database.clientEnvironment(), ...props.handlerEnvironment };
    const bedrockModels = props.bedrockModelIds ?? DEFAULT_BEDROCK_MODELS;
    const parameters = new AriadneParameters(this, 'Parameters', prefix, bedrockModels, props.parametersKmsKeyArn);
    const functions = this.stateFunctions(environment, parameters, bedrockModels, props.bedrockRegions);
    this.experiments = new ExperimentStateMachine(this, 'Experiments', {
      functions: functions.byState,
      stateMachineName: `${this.stackName}-experiments`,
      executionTimeout: Duration.minutes(props.executionTimeoutMinutes ?? 180),
      orchestration: props.orchestration,
    });
    // Sweeps: RegisterSweep, then a Distributed Map of experiment executions.
    const registerSweep = handlerFunction(this, 'RegisterSweepFn', {
      file: 'register-sweep.ts',
      exportName: 'handler',
      timeoutSeconds: REGISTER_SWEEP_TIMEOUT_SECONDS,
      environment,
    });
    this.sweeps = new SweepStateMachine(this, 'Sweeps', {
      registerFunction: registerSweep,
      experiments: this.experiments.stateMachine,
      stateMachineName: `${this.stackName}-sweeps`,
    });
    const failures = new FailureHandling(this, 'FailureHandling', {
      stateMachine: this.experiments.stateMachine,
      environment,
    });
    this.grantEndsAndDatabase(functions, failures, registerSweep, database, parameters);
    new Monitoring(this, 'Monitoring', {
      stateMachine: this.experiments.stateMachine,
      functions: [...Object.values(functions.byState), failures.finalizer, registerSweep],
      dashboard: props.dashboard ?? false,
    });
    acknowledgeNagFindings(this, {
      parameterPrefix: prefix,
      deadLetterQueue: failures.deadLetters,
      sweepMachine: this.sweeps.stateMachine,
      sweepBucket: this.sweeps.bucket,
      // every function of the stack, the custom-resource framework's too: each grants invoking itself
      functions: this.node.findAll().filter((c): c is LambdaFunction => c instanceof LambdaFunction),
      databaseSecret: database.cluster.node.findChild('Secret'),
      readerSecret: database.readerSecret,
      databaseCluster: database.cluster,
    });
    this.outputs(database, bedrockModels);
    this.retainOnlyWhatExists(props.removeData);
    // Last: the cluster becomes protected only after every other resource exists (lib/database.ts says why).
    database.protectWhenComplete(this);
  }

  /**
   * Only the database lives in the VPC, and only the Data API (an AWS service) reaches it: isolated subnets, no NAT
   * gateway, no internet gateway. The one given by vpcId, or a new one.
   */
  private databaseVpc(props: AriadneStackProps): IVpc {
    if (props.vpcId) return Vpc.fromLookup(this, 'Vpc', { vpcId: props.vpcId });
    return new Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'Database', subnetType: SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
      flowLogs: {
        all: {
          trafficType: FlowLogTrafficType.REJECT,
          // Its own group, so removeData removes it too (CDK's default group is always retained).
          destination: FlowLogDestination.toCloudWatchLogs(
            new LogGroup(this, 'FlowLogs', {
              retention: LOG_RETENTION,
              removalPolicy: props.removeData ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
            }),
          ),
        },
      },
    });
  }

  /** The experiment machine's task functions, each granted the settings, secret and models it needs. */
  private stateFunctions(
    environment: Record<string, string>,
    parameters: AriadneParameters,
    bedrockModels: string[],
    bedrockRegions: string[] | undefined,
  ): HandlerFunctions {
    const functions = new HandlerFunctions(this, 'Handlers', { environment });
    // The settings are read where experiments start; each key by the one turn function that sends it, and by no
    // other function; no Bedrock grant reaches the Ollama or OpenAI turns.
    parameters.grantRead(functions.byState[STATES.StartExperiment]);
    parameters.grantSecret(functions.byState[STATES.InvokeOllamaAgent], SECRET_OF_PROVIDER.ollama);
    parameters.grantSecret(functions.byState[STATES.InvokeOpenAIAgent], SECRET_OF_PROVIDER.openai);
    for (const statement of bedrockInvokeStatements(this, bedrockModels, bedrockRegions))
      functions.byState[STATES.InvokeBedrockAgent].addToRolePolicy(statement);
    return functions;
  }

  /** What the ends of an experiment and the database's users are allowed. */
  private grantEndsAndDatabase(
    functions: HandlerFunctions,
    failures: FailureHandling,
    registerSweep: IFunction,
    database: ExperimentDatabase,
    parameters: AriadneParameters,
  ): void {
    // Every way an experiment ends returns a sweep's task token: the Finalize* states and the EventBridge finalizer.
    for (const fn of [
      functions.byState[STATES.FinalizeSuccess],
      functions.byState[STATES.FinalizeTimeout],
      functions.byState[STATES.FinalizeStuck],
      functions.byState[STATES.FinalizeFailure],
      failures.finalizer,
    ])
      fn.addToRolePolicy(sendTaskSuccessStatement());
    for (const [state, fn] of Object.entries(functions.byState) as Array<[TaskState, IFunction]>)
      // only the handlers that touch the database (core/machine/tasks.ts; their timeouts cover its retry budget)
      if (TASKS[state].database) database.grantDataApi(fn);
    database.grantDataApi(failures.finalizer);
    database.grantDataApi(registerSweep);
    // the deployed max_duration_minutes, for a sweep's time bound (runs that do not set their own get it)
    parameters.grantRead(registerSweep);
  }

  /** The stack's outputs: what the CLI and `aws rds-data` are given. */
  private outputs(database: ExperimentDatabase, bedrockModels: string[]): void {
    new CfnOutput(this, OUTPUT_KEYS.sweepStateMachineArn, {
      value: this.sweeps.stateMachine.stateMachineArn,
      description: 'ariadne sweep FILE --aws --state-machine-arn',
    });
    new CfnOutput(this, OUTPUT_KEYS.sweepBucketName, {
      value: this.sweeps.bucket.bucketName,
      description: 'ariadne sweep FILE --aws --bucket (where run lists are uploaded)',
    });
    new CfnOutput(this, OUTPUT_KEYS.stateMachineArn, {
      value: this.experiments.stateMachine.stateMachineArn,
      description: 'ariadne launch --state-machine-arn',
    });
    // What `aws rds-data execute-statement --resource-arn ... --secret-arn ... --database ... --sql ...` needs.
    new CfnOutput(this, OUTPUT_KEYS.databaseClusterArn, {
      value: database.cluster.clusterArn,
      description: 'aws rds-data execute-statement --resource-arn',
    });
    new CfnOutput(this, OUTPUT_KEYS.databaseSecretArn, {
      value: database.secret.secretArn,
      description:
        "the master user's secret: the functions' and ariadne sql --write's (an admin's), never researchers'",
    });
    new CfnOutput(this, OUTPUT_KEYS.databaseReaderSecretArn, {
      value: database.readerSecret.secretArn,
      description: 'aws rds-data execute-statement --secret-arn (the read-only role researchers read results as)',
    });
    // an output's value may not be empty
    new CfnOutput(this, OUTPUT_KEYS.bedrockModels, {
      value: bedrockModels.join(',') || 'none',
      description:
        'the Bedrock models and profiles the agent may call (ariadne policy researcher --bedrock names them)',
    });
    new CfnOutput(this, OUTPUT_KEYS.databaseName, {
      value: DATABASE_NAME,
      description: 'aws rds-data execute-statement --database',
    });
  }

  /** removeData: nothing outlives the stack; otherwise what is kept is kept only once it exists. */
  private retainOnlyWhatExists(removeData: boolean | undefined): void {
    // removeData means nothing outlives the stack: also the logs other constructs keep by default.
    if (removeData)
      for (const c of this.node.findAll())
        if (CfnResource.isCfnResource(c) && c.cfnOptions.deletionPolicy === CfnDeletionPolicy.RETAIN)
          c.applyRemovalPolicy(RemovalPolicy.DESTROY);
    // What is kept is kept only once it exists: RetainExceptOnCreate ("CloudFormation deletes a resource that was
    // created during a failed stack creation", CloudFormation user guide, DeletionPolicy attribute), so a first
    // deploy that fails leaves no orphaned cluster, secret, VPC, bucket or log group behind. Applied last, to every
    // resource any construct retains (a bucket's and a log group's default is Retain).
    Aspects.of(this).add(
      {
        visit: (node) => {
          if (CfnResource.isCfnResource(node) && node.cfnOptions.deletionPolicy === CfnDeletionPolicy.RETAIN)
            node.cfnOptions.deletionPolicy = CfnDeletionPolicy.RETAIN_EXCEPT_ON_CREATE;
        },
      },
      { priority: AspectPriority.READONLY - 1 },
    );
  }
}
