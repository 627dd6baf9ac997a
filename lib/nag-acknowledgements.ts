// cdk-nag (AwsSolutions) findings we accept, each with its reason. Everything
// else is fixed in the constructs; test/cdk-stack.test.ts runs the checks.
import { Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';

const LAMBDA_MANAGED = {
  AWSLambdaBasicExecutionRole: 'the AWS managed Lambda execution policy: write its own CloudWatch logs, nothing else',
};

export function acknowledgeNagFindings(
  stack: Stack,
  opts: {
    parameterPrefix: string;
    functions: IFunction[];
    deadLetterQueue: IConstruct;
    sweepMachine: IConstruct;
    experimentsMachine: IConstruct;
    databaseSecret: IConstruct;
  },
): void {
  const ack = (scope: IConstruct, id: string, reason: string) =>
    Validations.of(scope).acknowledge({ id: `AwsSolutions::AwsSolutions-${id}`, reason });
  for (const [policy, reason] of Object.entries(LAMBDA_MANAGED)) {
    ack(stack, `IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/${policy}]`, reason);
  }
  ack(
    stack,
    'IAM5[Resource::*]',
    'only for actions that take no resource ARN: ' +
      'X-Ray trace segments and CloudWatch Logs delivery for Step Functions logging; ' +
      'test/cdk-stack.test.ts fails if any other action is granted on "*"',
  );
  ack(
    stack,
    `IAM5[Resource::arn:<AWS::Partition>:ssm:<AWS::Region>:<AWS::AccountId>:parameter${opts.parameterPrefix}/*]`,
    `read-only (GetParametersByPath) on Ariadne's own parameter prefix ${opts.parameterPrefix}, ` +
      'which holds only Ariadne settings',
  );
  for (const fn of opts.functions) {
    const logicalId = stack.getLogicalId(fn.node.defaultChild as CfnElement);
    ack(
      stack,
      `IAM5[Resource::<${logicalId}.Arn>:*]`,
      'lambda:InvokeFunction on the versions and aliases of one of our own functions ' +
        '(the grant CDK makes for Step Functions and custom resources)',
    );
  }
  // The sweep machine watches and stops the experiment executions it starts (.sync:2), and its Distributed Map
  // runs child executions of itself: both are execution ARNs that exist only at run time, so they end in a wildcard.
  const machineName = (machine: IConstruct) =>
    `{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"${stack.getLogicalId(machine.node.defaultChild as CfnElement)}"}]}]}`;
  const executions = 'arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:';
  ack(
    stack,
    `IAM5[Resource::${executions}${machineName(opts.experimentsMachine)}*]`,
    'DescribeExecution/StopExecution on executions of the experiment machine only ' +
      "(the sweep machine's .sync:2 children; their names are known at run time)",
  );
  ack(
    stack,
    `IAM5[Resource::${executions}${machineName(opts.sweepMachine)}:*]`,
    "the Distributed Map's own child executions of the sweep machine (named by Step Functions at run time)",
  );
  ack(
    stack,
    `IAM5[Resource::${executions}${machineName(opts.sweepMachine)}/*:*]`,
    "the Distributed Map's own child executions of the sweep machine (named by Step Functions at run time)",
  );
  ack(
    opts.databaseSecret,
    'SMG4',
    'no rotation: the rotation Lambda has to run in the database VPC, whose isolated subnets reach Secrets ' +
      'Manager only through an interface endpoint (~$7.30/month per AZ, many times the idle budget of issue 16); ' +
      'the secret is read by the RDS Data API only, IAM-authorized, never handed to a client',
  );
  ack(opts.deadLetterQueue, 'SQS3', "this queue is itself the dead-letter queue of the finalizer's EventBridge target");
}
