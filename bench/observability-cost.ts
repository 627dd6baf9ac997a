// What an experiment's logs, metrics and traces cost: CloudWatch Logs ingestion and storage, the custom metrics of
// the embedded metric format records, and X-Ray traces when on, at the stack's settings (lib/observability.ts), from
// the run's counts (bench/cost.ts). Each record is built as AWS documents its fields, with this stack's names, and
// measured in UTF-8 bytes (AWS's may differ by a few tens); the handlers' own lines are measured as printed.
import { SystemLogLevel } from 'aws-cdk-lib/aws-lambda';
import { LAMBDA_LOG_LEVELS, LOG_RETENTION, type Observability } from '../lib/observability.ts';
import { HOURS_PER_MONTH, PRICES } from './prices.ts';
import { distinctMetrics, emfMetrics } from '../core/telemetry/emf-records.ts';

const REQUEST_ID = '8f5f3b6e-1c2d-4e5f-9a0b-1c2d3e4f5a6b';
const TIME = '2026-11-24T10:00:00.000Z';
const TRACE = {
  type: 'X-Amzn-Trace-Id',
  value: 'Root=1-6743c8e0-0123456789abcdef01234567;Parent=0123456789abcdef;Sampled=1',
};
const FUNCTION_ARN =
  'arn:aws:lambda:us-east-1:123456789012:function:Ariadne-HandlersInvokeBaselineAgentFnE006C576-AbCdEf12';

const bytes = (record: unknown) => Buffer.byteLength(JSON.stringify(record));

/**
 * A function's system log lines per invocation at INFO ("Lambda automatically sends 'start' and 'report' log
 * messages", Lambda Developer Guide, Log-level filtering): platform.start and platform.report with the fields of the
 * Lambda Telemetry API Event schema reference (requestId, version; metrics durationMs, billedDurationMs, memorySizeMB,
 * maxMemoryUsedMB; status), plus the trace context when the function is traced. None at WARN.
 */
export function lambdaSystemBytesPerInvocation(tracing: boolean): number {
  if (LAMBDA_LOG_LEVELS.systemLogLevelV2 === SystemLogLevel.WARN) return 0;
  const tracingField = tracing ? { tracing: TRACE } : {};
  const start = {
    time: TIME,
    type: 'platform.start',
    record: { requestId: REQUEST_ID, version: '$LATEST', ...tracingField },
  };
  const report = {
    time: TIME,
    type: 'platform.report',
    record: {
      requestId: REQUEST_ID,
      metrics: { durationMs: 123.45, billedDurationMs: 124, memorySizeMB: 512, maxMemoryUsedMB: 98 },
      ...tracingField,
      status: 'success',
    },
  };
  return bytes(start) + bytes(report);
}

/**
 * A line the handler printed. A JSON object (Powertools' log lines and metric records, written to stdout as they are)
 * is kept as written: "your function code must output log events to stdout or stderr as JSON formatted objects"
 * (Lambda Developer Guide, Log-level filtering). Any other text is wrapped by Lambda's JSON format (timestamp, level,
 * requestId, message).
 */
export function lambdaApplicationBytes(line: string): number {
  if (line.startsWith('{') && line.endsWith('}')) return Buffer.byteLength(line);
  return bytes({ timestamp: TIME, level: 'INFO', requestId: REQUEST_ID, message: line });
}

/**
 * One Step Functions log event without execution data, averaged over a turn's 16 history events (state-machine
 * budgets.ts: 10 of them a state entered or exited, 6 a Lambda task scheduled, started or succeeded). Fields of the
 * HistoryEvent (Step Functions API reference: id, type, previousEventId, timestamp, details) as the log names them,
 * with the execution's ARN and the redrive count.
 */
export function stateMachineBytesPerEvent(executionArn: string): number {
  const common = {
    previous_event_id: '1041',
    event_timestamp: '1764000000000',
    execution_arn: executionArn,
    redrive_count: '0',
  };
  const state = bytes({
    id: '1042',
    type: 'TaskStateEntered',
    details: { input: '', inputDetails: { truncated: false }, name: 'InvokeBaselineAgent' },
    ...common,
  });
  const task = bytes({
    id: '1042',
    type: 'LambdaFunctionScheduled',
    details: { input: '', inputDetails: { truncated: false }, resource: FUNCTION_ARN, timeoutInSeconds: 300 },
    ...common,
  });
  return (10 * state + 6 * task) / 16;
}

export interface ObservedRun {
  /** The run's execution ARNs (continue-as-new makes several). */
  executionArns: string[];
  /** AWS history events, all executions (core/machine/history-events.ts). */
  historyEvents: number;
  /** Events an ERROR-level log keeps: failed and retried states, failed, timed-out or aborted executions. */
  errorEvents: number;
  invocations: number;
  /** What the handlers printed, one entry a line. */
  handlerLines: string[];
  /** How long the run takes on AWS, in seconds: the hours its custom metrics are sent in. */
  awsSeconds: number;
}

export interface ObservabilityCost {
  lambdaSystemBytes: number;
  lambdaApplicationBytes: number;
  stateMachineBytes: number;
  /** The distinct custom metrics the handlers' EMF records make (namespace, name, dimension values). */
  customMetrics: number;
  /** Metric-hours billed: each custom metric for every hour it is sent in (a run starts within an hour). */
  metricHours: number;
  metrics: number;
  ingestion: number;
  storage: number;
  traces: number;
  xray: number;
  total: number;
}

/** Logs and traces of one run at the given settings, priced. */
export function observabilityCost(run: ObservedRun, settings: Observability): ObservabilityCost {
  const lambdaSystemBytes = run.invocations * lambdaSystemBytesPerInvocation(settings.tracing);
  const lambdaApplication = run.handlerLines.reduce((n, line) => n + lambdaApplicationBytes(line), 0);
  const perEvent =
    run.executionArns.reduce((n, arn) => n + stateMachineBytesPerEvent(arn), 0) / Math.max(1, run.executionArns.length);
  const logged = { ALL: run.historyEvents, ERROR: run.errorEvents, FATAL: 0, OFF: 0 }[settings.stateMachineLogLevel];
  const stateMachineBytes = logged * perEvent;
  const gb = (lambdaSystemBytes + lambdaApplication + stateMachineBytes) / 1e9;
  const ingestion = gb * PRICES.logsIngestionGb;
  // Kept for the groups' retention (30 days, about a month), priced uncompressed: an upper bound.
  const storage = gb * PRICES.logsStorageGbMonth * (Number(LOG_RETENTION) / 30);
  // One trace per execution: Step Functions passes its trace ID to every Lambda task of the execution.
  const traces = settings.tracing ? run.executionArns.length : 0;
  const xray = traces * PRICES.xrayTraceRecorded;
  // Prorated by the hour: a run of s seconds starting at a random moment touches 1 + s/3600 clock hours on average.
  // An upper bound for one run: runs in flight together in the same hour share their metric-hours.
  const customMetrics = distinctMetrics(emfMetrics(run.handlerLines)).length;
  const metricHours = customMetrics * (1 + run.awsSeconds / 3600);
  const metrics = (metricHours / HOURS_PER_MONTH) * PRICES.customMetricMonth;
  return {
    lambdaSystemBytes,
    lambdaApplicationBytes: lambdaApplication,
    stateMachineBytes,
    customMetrics,
    metricHours,
    metrics,
    ingestion,
    storage,
    traces,
    xray,
    total: ingestion + storage + metrics + xray,
  };
}
