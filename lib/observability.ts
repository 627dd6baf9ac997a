// What the stack writes about itself, and what that costs: X-Ray tracing and the state machines' log
// level are chosen once per stack (AriadneStackProps, `-c tracing=true`, `-c stateMachineLogLevel=ALL`) and read
// here by every construct that makes a function or a state machine, so no construct needs a prop threaded to it.
// bench/cost.ts prices what each choice writes per experiment.
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { ApplicationLogLevel, SystemLogLevel, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { LogLevel, type LogOptions } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct, IConstruct } from 'constructs';

/** How long every log group keeps its lines: long enough to debug a study, not forever. */
export const LOG_RETENTION = RetentionDays.ONE_MONTH;

/** The state machine log levels Step Functions accepts (CloudFormation LoggingConfiguration.Level). */
export const STATE_MACHINE_LOG_LEVELS = ['ALL', 'ERROR', 'FATAL', 'OFF'] as const;
export type StateMachineLogLevel = (typeof STATE_MACHINE_LOG_LEVELS)[number];

export interface Observability {
  /**
   * Active X-Ray tracing on every function and both state machines. Off by default: a Standard execution is one
   * trace ("When you pass the trace ID through all AWS Lambda functions, the segment data is added to the trace ID",
   * AWS re:Post, x-ray-trace-quota-error), so a 1,000-turn execution overflows X-Ray's trace document size (500 KB)
   * long before its end, and the database already records every turn's timings.
   */
  tracing: boolean;
  /**
   * ERROR by default: failed, timed-out and aborted executions and failed tasks, retried or not, with their errors;
   * ALL also logs every state entered and exited ("all event types do when set to ALL", CloudFormation template
   * reference, AWS::StepFunctions::StateMachine LoggingConfiguration), about 16 lines a turn, which the execution
   * history (kept 90 days, free) and the database already hold.
   */
  stateMachineLogLevel: StateMachineLogLevel;
}

export const DEFAULT_OBSERVABILITY: Observability = { tracing: false, stateMachineLogLevel: 'ERROR' };

/**
 * Lambda log levels (JSON format only; "Log-level filtering", Lambda Developer Guide). Application INFO: the handlers
 * write no line of their own per turn, only errors, which are kept. System INFO: "Lambda automatically sends 'start'
 * and 'report' log messages" at INFO; the report is the only per-invocation record of a function's duration, memory
 * and timeout, and the two lines cost about $0.0005 a 10,000-action experiment (bench/cost.ts), so they stay.
 */
export const LAMBDA_LOG_LEVELS: { applicationLogLevelV2: ApplicationLogLevel; systemLogLevelV2: SystemLogLevel } = {
  applicationLogLevelV2: ApplicationLogLevel.INFO,
  systemLogLevelV2: SystemLogLevel.INFO,
};

const settings = new WeakMap<Stack, Observability>();

/** Sets the stack's choices; call before any function or state machine is made in it. */
export function configureObservability(stack: Stack, choices: Partial<Observability>): void {
  settings.set(stack, {
    tracing: choices.tracing ?? DEFAULT_OBSERVABILITY.tracing,
    stateMachineLogLevel: choices.stateMachineLogLevel ?? DEFAULT_OBSERVABILITY.stateMachineLogLevel,
  });
}

function observabilityOf(scope: IConstruct): Observability {
  return settings.get(Stack.of(scope)) ?? DEFAULT_OBSERVABILITY;
}

/** A state machine's tracingEnabled. */
export function tracingEnabled(scope: IConstruct): boolean {
  return observabilityOf(scope).tracing;
}

/** A function's tracing: Active when on; otherwise none (no TracingConfig, no X-Ray grant). */
export function lambdaTracing(scope: IConstruct): Tracing {
  return observabilityOf(scope).tracing ? Tracing.ACTIVE : Tracing.DISABLED;
}

/**
 * A state machine's logs: its own group (`<scope>/Logs`) with the retention and an explicit removal (the logs go with
 * the stack; LogGroup's default is to keep them), at the stack's level, without execution data (inputs and outputs
 * carry prompts and model text).
 */
export function stateMachineLogs(scope: Construct): LogOptions {
  return {
    destination: new LogGroup(scope, 'Logs', { retention: LOG_RETENTION, removalPolicy: RemovalPolicy.DESTROY }),
    level: LogLevel[observabilityOf(scope).stateMachineLogLevel],
    includeExecutionData: false,
  };
}
