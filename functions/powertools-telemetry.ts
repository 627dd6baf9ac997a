// The telemetry port in Lambda, through Powertools for AWS Lambda: the Logger writes one JSON line per call to stdout,
// at the level Lambda's LoggingConfig sets (AWS_LAMBDA_LOG_LEVEL, which Powertools reads before any other setting),
// and the Metrics utility writes the embedded metric format records CloudWatch turns into metrics. Loaded only by
// lambdaEntry (deps.ts), so the local runner and the CLI never load Powertools.
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { METRIC_NAMESPACE, METRICS, SERVICE, turnMetricValues, type MetricName } from '../core/telemetry/metrics.ts';
import { errorFields, turnFields, type EventFields, type Telemetry } from '../core/telemetry/telemetry.ts';

/** The port, and what Lambda's invocation cycle adds to it. */
export interface LambdaTelemetry extends Telemetry {
  /** Before an invocation: its request id, function and cold start go on every line it writes. */
  begin(context: unknown): void;
  /** After it, however it ended: the metrics it stored, one record per dimension set. */
  end(): void;
}

type LoggerContext = Parameters<Logger['addContext']>[0];

export function powertoolsTelemetry(): LambdaTelemetry {
  const logger = new Logger({ serviceName: SERVICE });
  // Two records: the per-provider metrics carry the Provider dimension, the stack-wide ones none (beyond service).
  // The experiment id, turn and model are metadata, properties of the record: as dimensions they would make a
  // custom metric (billed per metric-hour) of every experiment.
  const byProvider = new Metrics({ namespace: METRIC_NAMESPACE, serviceName: SERVICE });
  const stackWide = new Metrics({ namespace: METRIC_NAMESPACE, serviceName: SERVICE });
  const add = (name: MetricName, value: number) =>
    (METRICS[name].byProvider ? byProvider : stackWide).addMetric(name, METRICS[name].unit, value);
  const properties = (fields: EventFields) => {
    for (const m of [byProvider, stackWide])
      for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) m.addMetadata(k, String(v));
  };
  return {
    begin(context) {
      if (context && typeof context === 'object' && 'awsRequestId' in context)
        logger.addContext(context as LoggerContext);
    },
    end() {
      for (const m of [byProvider, stackWide]) {
        // publishing clears what the record held; with no metric there is no record (and no warning line)
        if (m.hasStoredMetrics()) m.publishStoredMetrics();
        else {
          m.clearMetadata();
          m.clearDimensions();
        }
      }
    },
    turn(r) {
      logger.info('turn', turnFields(r));
      const values = turnMetricValues(r);
      if (values.length === 0) return;
      byProvider.addDimension('Provider', r.provider);
      for (const [name, value] of values) add(name, value);
      properties({ experimentId: r.experimentId, turn: r.turn, model: r.model });
    },
    event(message, fields) {
      logger.info(message, fields);
    },
    error(message, err, fields = {}) {
      logger.error(message, { ...fields, ...errorFields(err) });
    },
    experimentFailed(fields) {
      logger.error('experiment failed', fields);
      add('ExperimentsFailed', 1);
      properties(fields);
    },
  };
}
