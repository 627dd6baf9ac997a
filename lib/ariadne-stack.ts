// The Ariadne stack: handler Lambdas and the experiment state machine.
import { ArnFormat, CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FlowLogTrafficType, Vpc } from 'aws-cdk-lib/aws-ec2';
import { ExperimentDatabase } from './database.ts';
import { acknowledgeNagFindings } from './nag-acknowledgements.ts';
import { AriadneParameters } from './parameters.ts';
import { Monitoring } from './monitoring.ts';
import { STATES } from '../state-machine/states.ts';
import type { Construct } from 'constructs';
import { HandlerFunctions, handlerFunction } from './handler-functions.ts';
import { ExperimentStateMachine } from './experiment-state-machine.ts';
import { sendTaskSuccessStatement, SweepStateMachine } from './sweep-state-machine.ts';
import { FailureHandling } from './failure-handling.ts';

export interface AriadneStackProps extends StackProps {
  /** Environment passed to every handler (database settings). */
  handlerEnvironment?: Record<string, string>;
  /** Parameter Store prefix of all Ariadne settings. */
  parameterPrefix?: string;
  /** The Bedrock models experiments may call (InvokeModel is allowed on these only). */
  bedrockModelIds?: string[];
  /** The customer managed KMS key ARN of the SecureStrings under <prefix>/secrets; default: AWS managed aws/ssm. */
  parametersKmsKeyArn?: string;
  /** Deploy into this existing VPC (it needs private subnets with egress); default: a new VPC. */
  vpcId?: string;
  /**
   * Hard limit of one execution; keep it above max_duration_minutes so
   * experiments end by their own rule. Default 180.
   */
  executionTimeoutMinutes?: number;
}

export const DEFAULT_BEDROCK_MODELS = [
  'anthropic.claude-3-5-sonnet-20240620-v1:0',
  'anthropic.claude-3-haiku-20240307-v1:0',
  'amazon.nova-lite-v1:0',
  'amazon.nova-pro-v1:0',
];

export class AriadneStack extends Stack {
  readonly experiments: ExperimentStateMachine;
  readonly sweeps: SweepStateMachine;

  constructor(scope: Construct, id: string, props: AriadneStackProps = {}) {
    super(scope, id, props);
    const prefix = props.parameterPrefix ?? '/ariadne';
    // Lambdas reach Bedrock, SSM, Secrets Manager and Ollama through one NAT gateway.
    const vpc = props.vpcId
      ? Vpc.fromLookup(this, 'Vpc', { vpcId: props.vpcId })
      : new Vpc(this, 'Vpc', {
          maxAzs: 2,
          natGateways: 1,
          flowLogs: { all: { trafficType: FlowLogTrafficType.REJECT } },
        });
    const database = new ExperimentDatabase(this, 'Database', { vpc });
    const environment = { PARAMETER_PREFIX: prefix, ...database.clientEnvironment(), ...props.handlerEnvironment };
    const parameters = new AriadneParameters(this, 'Parameters', prefix, props.parametersKmsKeyArn);
    const functions = new HandlerFunctions(this, 'Handlers', {
      environment,
      vpc,
      securityGroups: [database.clientSecurityGroup],
    });
    // Configuration is read where experiments start and where models are called.
    for (const state of [STATES.StartExperiment, STATES.InvokeOllamaAgent, STATES.InvokeBedrockAgent])
      parameters.grantRead(functions.byState[state]);
    functions.byState[STATES.InvokeBedrockAgent].addToRolePolicy(
      new PolicyStatement({
        actions: ['bedrock:InvokeModel'],
        resources: (props.bedrockModelIds ?? DEFAULT_BEDROCK_MODELS).map((id) =>
          this.formatArn({
            service: 'bedrock',
            account: '',
            resource: 'foundation-model',
            resourceName: id,
            arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
          }),
        ),
      }),
    );
    this.experiments = new ExperimentStateMachine(this, 'Experiments', {
      functions: functions.byState,
      stateMachineName: `${this.stackName}-experiments`,
      executionTimeout: Duration.minutes(props.executionTimeoutMinutes ?? 180),
    });
    // Sweeps: RegisterSweep, then a Distributed Map of experiment executions.
    const registerSweep = handlerFunction(this, 'RegisterSweepFn', {
      file: 'register-sweep.ts',
      exportName: 'handler',
      timeoutSeconds: 60,
      environment,
      vpc,
      securityGroups: [database.clientSecurityGroup],
    });
    const sweepMachineName = `${this.stackName}-sweeps`;
    this.sweeps = new SweepStateMachine(this, 'Sweeps', {
      registerFunction: registerSweep,
      experiments: this.experiments.stateMachine,
      stateMachineName: sweepMachineName,
    });
    const failures = new FailureHandling(this, 'FailureHandling', {
      stateMachine: this.experiments.stateMachine,
      environment,
      vpc,
      securityGroups: [database.clientSecurityGroup],
    });
    // Every way an experiment ends returns a sweep's task token: the Finalize* states and the EventBridge finalizer.
    for (const fn of [
      functions.byState[STATES.FinalizeSuccess],
      functions.byState[STATES.FinalizeTimeout],
      functions.byState[STATES.FinalizeStuck],
      functions.byState[STATES.FinalizeFailure],
      failures.finalizer,
    ])
      fn.addToRolePolicy(sendTaskSuccessStatement(this, sweepMachineName));
    const handlers = [...Object.values(functions.byState), failures.finalizer, registerSweep];
    for (const fn of handlers) database.grantConnect(fn);
    new Monitoring(this, 'Monitoring', { stateMachine: this.experiments.stateMachine, functions: handlers });
    acknowledgeNagFindings(this, {
      parameterPrefix: prefix,
      deadLetterQueue: failures.deadLetters,
      sweepMachine: this.sweeps.stateMachine,
      sweepBucket: this.sweeps.bucket,
      functions: [...handlers, database.migrateFunction],
    });
    new CfnOutput(this, 'SweepStateMachineArn', {
      value: this.sweeps.stateMachine.stateMachineArn,
      description: 'ariadne sweep FILE --aws --state-machine-arn',
    });
    new CfnOutput(this, 'SweepBucketName', {
      value: this.sweeps.bucket.bucketName,
      description: 'ariadne sweep FILE --aws --bucket (where run lists are uploaded)',
    });
    new CfnOutput(this, 'StateMachineArn', {
      value: this.experiments.stateMachine.stateMachineArn,
      description: 'ariadne launch --state-machine-arn',
    });
    new CfnOutput(this, 'DatabaseProxyEndpoint', {
      value: database.proxy.endpoint,
      description: 'RDS Proxy endpoint (reachable from the VPC only)',
    });
    new CfnOutput(this, 'DatabaseClusterEndpoint', { value: database.cluster.clusterEndpoint.hostname });
    new CfnOutput(this, 'DatabaseSecretArn', {
      value: database.cluster.secret!.secretArn,
      description: 'username and password (Secrets Manager)',
    });
  }
}
