// Alarms for executions that fail or time out, and on the functions' own metrics (core/telemetry/metrics.ts:
// experiments that ended failed, sustained model throttling), and (on request: it bills $3/month beyond an account's
// 3 free dashboards, triple the stack's idle budget) a small dashboard: executions, their outcomes and duration,
// handler errors, and the experiments' turns, tokens, cost, throttles and outage waits. Each alarm bills $0.10 a
// month whether or not its metric has data (bench/idle-cost.ts prices them).
import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  Metric,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { METRIC_NAMESPACE, METRICS, PROVIDERS, SERVICE, type MetricName } from '../core/telemetry/metrics.ts';

/** Throttled model calls in 5 minutes that, for 3 periods in a row, say the account's model quota is too small. */
export const THROTTLE_ALARM = { threshold: 10, periods: 3 };

const PERIOD = Duration.minutes(5);

/** One of the functions' metrics: a stack-wide one has only the service dimension; a per-provider one adds Provider. */
function ownMetric(name: MetricName, provider?: string): Metric {
  return new Metric({
    namespace: METRIC_NAMESPACE,
    metricName: name,
    dimensionsMap: provider ? { service: SERVICE, Provider: provider } : { service: SERVICE },
    statistic: 'Sum',
    period: PERIOD,
  });
}

/** A metric per provider (labelled) when it has one, else the stack-wide one. */
function perProvider(name: MetricName): IMetric[] {
  return METRICS[name].byProvider
    ? PROVIDERS.map((p) => ownMetric(name, p).with({ label: `${name} ${p}` }))
    : [ownMetric(name)];
}

export class Monitoring extends Construct {
  constructor(
    scope: Construct,
    id: string,
    props: { stateMachine: StateMachine; functions: IFunction[]; dashboard?: boolean },
  ) {
    super(scope, id);
    this.executionAlarms(props.stateMachine);
    this.experimentAlarms();
    if (!props.dashboard) return;
    this.dashboard(props.stateMachine, props.functions);
  }

  /** The experiment machine's failed and timed-out executions. */
  private executionAlarms(m: StateMachine): void {
    const period = PERIOD;
    for (const [name, metric] of [
      ['ExecutionsFailed', m.metricFailed({ period })],
      ['ExecutionsTimedOut', m.metricTimedOut({ period })],
    ] as const) {
      new Alarm(this, name, {
        alarmDescription:
          `Ariadne experiment executions ${name === 'ExecutionsFailed' ? 'failed' : 'timed out'}: ` +
          'see experiments.failure_reason',
        metric,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    }
  }

  /** The functions' own metrics: experiments ended failed, and model calls throttled. */
  private experimentAlarms(): void {
    // Also the runs the EventBridge finalizer fails (aborted, timed out): ExecutionsFailed does not see those.
    new Alarm(this, 'ExperimentsFailed', {
      alarmDescription:
        'Ariadne experiments ended failed: the finalize functions log "experiment failed" with the experiment id ' +
        'and the error name (Logs Insights: filter message = "experiment failed")',
      metric: ownMetric('ExperimentsFailed'),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    new Alarm(this, 'ModelThrottling', {
      alarmDescription:
        `Ariadne model calls throttled ${THROTTLE_ALARM.threshold} or more times in each of ` +
        `${THROTTLE_ALARM.periods} 5-minute periods: the model quota is too small for the runs in flight ` +
        '(lower the sweep concurrency, or raise the quota); the turn lines name provider and model',
      metric: ownMetric('Throttles'),
      threshold: THROTTLE_ALARM.threshold,
      evaluationPeriods: THROTTLE_ALARM.periods,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }

  /** The optional dashboard: executions, handler errors, and the turns' metrics. */
  private dashboard(m: StateMachine, functions: IFunction[]): void {
    const period = PERIOD;
    new Dashboard(this, 'Dashboard', {
      widgets: [
        [
          new GraphWidget({
            title: 'Executions',
            left: [
              m.metricStarted({ period }),
              m.metricSucceeded({ period }),
              m.metricFailed({ period }),
              m.metricTimedOut({ period }),
              m.metricAborted({ period }),
            ],
          }),
          new GraphWidget({
            title: 'Execution time',
            left: [m.metricTime({ period, statistic: 'p50' }), m.metricTime({ period, statistic: 'p95' })],
          }),
          new GraphWidget({ title: 'Handler errors', left: functions.map((f) => f.metricErrors({ period })) }),
        ],
        [
          new GraphWidget({ title: 'Turns', left: perProvider('Turns') }),
          new GraphWidget({
            title: 'Tokens',
            left: [...perProvider('InputTokens'), ...perProvider('OutputTokens')],
          }),
          new GraphWidget({ title: 'Model cost (USD)', left: perProvider('CostUSD') }),
          new GraphWidget({
            title: 'Throttles, outage waits (s), failed experiments',
            left: [...perProvider('Throttles'), ...perProvider('ExperimentsFailed')],
            right: perProvider('OutageWaitSeconds'),
          }),
        ],
      ],
    });
  }
}
