// No zombie experiments: when an execution fails outside a Catch, times out
// or is aborted, EventBridge's "Step Functions Execution Status Change"
// event reaches a finalizer that marks the experiment failed (idempotently;
// an execution that continued as new is ignored by the handler).
import { Duration } from 'aws-cdk-lib';
import { Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ISecurityGroup, IVpc } from 'aws-cdk-lib/aws-ec2';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { handlerFunction } from './handler-functions.ts';
import { FINALIZE_TIMEOUT_SECONDS } from '../core/config/budgets.ts';

const FINALIZED_STATUSES = ['FAILED', 'TIMED_OUT', 'ABORTED'];

export interface FailureHandlingProps {
  stateMachine: IStateMachine;
  environment?: Record<string, string>;
  vpc?: IVpc;
  securityGroups?: ISecurityGroup[];
}

export class FailureHandling extends Construct {
  readonly finalizer: IFunction;
  readonly rule: Rule;
  readonly deadLetters: Queue;

  constructor(scope: Construct, id: string, props: FailureHandlingProps) {
    super(scope, id);
    this.finalizer = handlerFunction(this, 'FinalizerFn', {
      file: 'finalize-execution.ts',
      exportName: 'handler',
      // it writes the final status as the Finalize Tasks do: their budget, which covers a resuming database
      timeoutSeconds: FINALIZE_TIMEOUT_SECONDS,
      environment: props.environment,
      vpc: props.vpc,
      securityGroups: props.securityGroups,
    });
    // Events the finalizer could not take after EventBridge's retries are kept here, not lost.
    const deadLetters = (this.deadLetters = new Queue(this, 'FinalizerDeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    }));
    this.rule = new Rule(this, 'ExecutionStatusChange', {
      description: 'Finalizes Ariadne experiments whose execution failed, timed out or was aborted',
      eventPattern: {
        source: ['aws.states'],
        detailType: ['Step Functions Execution Status Change'],
        detail: { status: FINALIZED_STATUSES, stateMachineArn: [props.stateMachine.stateMachineArn] },
      },
    });
    this.rule.addTarget(
      new LambdaFunction(this.finalizer, {
        retryAttempts: 8,
        maxEventAge: Duration.hours(6),
        deadLetterQueue: deadLetters,
      }),
    );
  }
}
