// Alarms for executions that fail or time out, and (on request: it bills
// $3/month beyond an account's 3 free dashboards, triple the stack's idle
// budget) a small dashboard: executions, their outcomes and duration, and
// handler errors.
import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Dashboard, GraphWidget, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';

export class Monitoring extends Construct {
  constructor(
    scope: Construct,
    id: string,
    props: { stateMachine: StateMachine; functions: IFunction[]; dashboard?: boolean },
  ) {
    super(scope, id);
    const m = props.stateMachine;
    const period = Duration.minutes(5);
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
    if (!props.dashboard) return;
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
          new GraphWidget({ title: 'Handler errors', left: props.functions.map((f) => f.metricErrors({ period })) }),
        ],
      ],
    });
  }
}
