// The custom metrics the functions send in CloudWatch's embedded metric format: one table for the Lambda side
// (functions/powertools-telemetry.ts), the alarms and dashboard (lib/monitoring.ts), the cost bench and the docs.
// CloudWatch bills each distinct (name, dimension values) per metric-hour, so dimensions stay low-cardinality (the
// provider at most); experiment id, model and turn are properties of the record (Logs Insights), never dimensions.
import type { TurnRecord } from './telemetry.ts';

export const METRIC_NAMESPACE = 'Ariadne';
/** Every line's `service`, and the dimension Powertools adds to every metric (one value: no extra metrics). */
export const SERVICE = 'ariadne';
/** The providers, each a value of the Provider dimension (core/machine/contracts.ts llmProvider). */
export const PROVIDERS = ['baseline', 'ollama', 'openai', 'bedrock'] as const;

export interface MetricSpec {
  unit: 'Count' | 'Seconds' | 'None';
  /** Sent with the Provider dimension (one metric per provider that sends it); else one metric for the stack. */
  byProvider: boolean;
  meaning: string;
}

export const METRICS = {
  Turns: { unit: 'Count', byProvider: true, meaning: 'turns committed' },
  InputTokens: { unit: 'Count', byProvider: true, meaning: 'input tokens the models reported' },
  OutputTokens: { unit: 'Count', byProvider: true, meaning: 'output tokens the models reported' },
  CostUSD: { unit: 'None', byProvider: true, meaning: "model cost at the run's prices, in USD" },
  Throttles: { unit: 'Count', byProvider: false, meaning: 'model calls throttled (429) and retried' },
  OutageWaitSeconds: {
    unit: 'Seconds',
    byProvider: false,
    meaning: 'time the state machine waited out a provider outage before a turn',
  },
  ExperimentsFailed: { unit: 'Count', byProvider: false, meaning: 'experiments that ended failed' },
} as const satisfies Record<string, MetricSpec>;

export type MetricName = keyof typeof METRICS;

/**
 * The values a turn sends. A value that is unknown (a baseline's tokens) or zero (no throttles, no wait) is not sent:
 * a metric with no data point in an hour is not billed for that hour.
 */
export function turnMetricValues(r: TurnRecord): Array<[MetricName, number]> {
  if (r.replayed) return [];
  const values: Array<[MetricName, number | null]> = [
    ['Turns', 1],
    ['InputTokens', r.inputTokens],
    ['OutputTokens', r.outputTokens],
    ['CostUSD', r.costUsd],
    ['Throttles', r.throttles || null],
    ['OutageWaitSeconds', r.outageWaitSeconds || null],
  ];
  return values.filter((v): v is [MetricName, number] => v[1] !== null);
}

/** The most custom metrics the stack can send: the per-provider ones for every provider, and the stack-wide ones. */
export function customMetricCount(providers = PROVIDERS.length): number {
  return Object.values(METRICS).reduce((n, m: MetricSpec) => n + (m.byProvider ? providers : 1), 0);
}
