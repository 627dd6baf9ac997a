// cdk-nag (AwsSolutions) findings we accept, each with its reason. Everything
// else is fixed in the constructs; test/cdk-stack.test.ts runs the checks.
import { Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';

const LAMBDA_MANAGED = {
  AWSLambdaBasicExecutionRole: 'the AWS managed Lambda execution policy: write its own CloudWatch logs, nothing else',
};

interface NagScopes {
  parameterPrefix: string;
  functions: IFunction[];
  deadLetterQueue: IConstruct;
  sweepMachine: IConstruct;
  databaseSecret: IConstruct;
  /** The researchers' read-only role's secret: not rotated either, for the same reason. */
  readerSecret: IConstruct;
  databaseCluster: IConstruct;
  sweepBucket: IConstruct;
}

const ack = (scope: IConstruct, id: string, reason: string) =>
  Validations.of(scope).acknowledge({ id: `AwsSolutions::AwsSolutions-${id}`, reason });

export function acknowledgeNagFindings(stack: Stack, opts: NagScopes): void {
  acknowledgeStackWide(stack, opts.parameterPrefix);
  acknowledgeInvokeGrants(stack, opts.functions);
  acknowledgeSweepExecutions(stack, opts.sweepMachine);
  acknowledgeDatabase(opts.databaseSecret, opts.readerSecret, opts.databaseCluster);
  acknowledgeSweepBucket(stack, opts.sweepBucket);
  ack(opts.deadLetterQueue, 'SQS3', "this queue is itself the dead-letter queue of the finalizer's EventBridge target");
}

/** The managed Lambda policy, the actions on "*", the parameter prefix, and the state machines' logs and traces. */
function acknowledgeStackWide(stack: Stack, parameterPrefix: string): void {
  for (const [policy, reason] of Object.entries(LAMBDA_MANAGED)) {
    ack(stack, `IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/${policy}]`, reason);
  }
  ack(
    stack,
    'IAM5[Resource::*]',
    'only for actions that take no resource ARN: ' +
      'X-Ray trace segments, CloudWatch Logs delivery for Step Functions logging, states:SendTaskSuccess ' +
      "(it names a task token, not a resource: lib/sweep-state-machine.ts says why), and RegisterSweep's " +
      "lambda:GetAccountSettings (read-only, the account's quotas); " +
      'test/cdk-stack.test.ts fails if any other action is granted on "*"',
  );
  ack(
    stack,
    `IAM5[Resource::arn:<AWS::Partition>:ssm:<AWS::Region>:<AWS::AccountId>:parameter${parameterPrefix}/*]`,
    `read-only (GetParametersByPath) on Ariadne's own parameter prefix ${parameterPrefix}, ` +
      'which holds only Ariadne settings',
  );
  ack(
    stack,
    'SF1',
    'the experiment and sweep machines log ERROR by default (failed executions and failed tasks, with their errors); ' +
      'ALL adds every state entered and exited, about 16 lines a turn that the execution history (free, 90 days) and ' +
      "the database already hold: `-c stateMachineLogLevel=ALL` turns it on (lib/observability.ts). CDK's " +
      'custom-resource waiter (lib/database.ts) runs only during a deploy, and its outcome reaches CloudFormation',
  );
  ack(
    stack,
    'SF2',
    'X-Ray is opt-in (`-c tracing=true`, lib/observability.ts): a Standard execution is one trace, which outgrows ' +
      "X-Ray's 500 KB trace document long before a 1,000-turn execution ends, and every turn's timing is in the " +
      "database; CDK's custom-resource waiter (lib/database.ts) runs only during a deploy",
  );
}

/** lambda:InvokeFunction on the versions and aliases of each of our functions. */
function acknowledgeInvokeGrants(stack: Stack, functions: IFunction[]): void {
  for (const fn of functions) {
    const logicalId = stack.getLogicalId(fn.node.defaultChild as CfnElement);
    ack(
      stack,
      `IAM5[Resource::<${logicalId}.Arn>:*]`,
      'lambda:InvokeFunction on the versions and aliases of one of our own functions ' +
        '(the grant CDK makes for Step Functions and custom resources)',
    );
  }
}

/** The sweep machine's own child executions. */
function acknowledgeSweepExecutions(stack: Stack, sweepMachine: IConstruct): void {
  // The sweep machine's Distributed Map runs child executions of itself: execution ARNs that exist only at run time,
  // so they end in a wildcard.
  const machineName = (machine: IConstruct) =>
    `{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"${stack.getLogicalId(machine.node.defaultChild as CfnElement)}"}]}]}`;
  const executions = 'arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:';
  ack(
    stack,
    `IAM5[Resource::${executions}${machineName(sweepMachine)}:*]`,
    "the Distributed Map's own child executions of the sweep machine (named by Step Functions at run time)",
  );
  ack(
    stack,
    `IAM5[Resource::${executions}${machineName(sweepMachine)}/*:*]`,
    "the Distributed Map's own child executions of the sweep machine (named by Step Functions at run time)",
  );
}

/** The database's secrets (not rotated) and its cluster (protected last). */
function acknowledgeDatabase(databaseSecret: IConstruct, readerSecret: IConstruct, databaseCluster: IConstruct): void {
  for (const secret of [databaseSecret, readerSecret])
    ack(
      secret,
      'SMG4',
      'no rotation: the rotation Lambda has to run in the database VPC, whose isolated subnets reach Secrets ' +
        'Manager only through an interface endpoint (~$7.30/month per AZ, many times the idle budget); ' +
        'the secret is read by the RDS Data API only, IAM-authorized, never handed to a client',
    );
  ack(
    databaseCluster,
    'RDS10',
    'created unprotected on purpose: RDS refuses to delete a protected cluster, so a failed first deploy could not ' +
      "roll it back; the stack's last resource (Custom::DeletionProtection, lib/database.ts) protects it once every " +
      'other resource exists, and protects it again after any update that touches it; removeData leaves it unprotected',
  );
}

/** The sweep bucket: the Map's reads and writes in it, and no access logs. */
function acknowledgeSweepBucket(stack: Stack, sweepBucket: IConstruct): void {
  // The sweep bucket holds working files only: run lists the CLI uploads and the Map's results.
  const bucket = stack.getLogicalId(sweepBucket.node.defaultChild as CfnElement);
  ack(
    stack,
    `IAM5[Resource::<${bucket}.Arn>/runs/*]`,
    "ItemReader: s3:GetObject on the sweep bucket's run lists (their keys are per sweep, known at run time)",
  );
  ack(
    stack,
    `IAM5[Resource::arn:<AWS::Partition>:s3:::<${bucket}>/*]`,
    "ResultWriter: the object actions the Distributed Map needs to write its results (CDK's grant) in the sweep " +
      'bucket only, under keys Step Functions names at run time',
  );
  ack(
    sweepBucket,
    'S1',
    'no server access logs: the bucket holds only expiring working copies (run lists generated from sweep files, Map ' +
      'results whose data is also in the database), reached only by the CLI and the sweep machine through IAM; a log ' +
      'bucket (itself to secure and expire) would cost more than it could tell, and CloudTrail data events can be ' +
      'turned on if an audit ever needs object access',
  );
}
