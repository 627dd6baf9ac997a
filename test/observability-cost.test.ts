// What bench/cost.ts adds for logs and traces (bench/observability-cost.ts), on a made-up run: what each setting
// of lib/observability.ts writes, and that tracing prices one trace per execution.
import { describe, expect, it } from 'vitest';
import {
  lambdaApplicationBytes,
  lambdaSystemBytesPerInvocation,
  observabilityCost,
  stateMachineBytesPerEvent,
  type ObservedRun,
} from '../bench/observability-cost.ts';
import { DEFAULT_OBSERVABILITY } from '../lib/observability.ts';
import { PRICES } from '../bench/prices.ts';

const arn = (n: number) => `arn:aws:states:us-east-1:123456789012:execution:Ariadne-experiments:random-perfect-t${n}`;
const run: ObservedRun = {
  executionArns: [arn(1), arn(1001)],
  historyEvents: 20_000,
  errorEvents: 0,
  invocations: 2_500,
  handlerLines: [],
  awsSeconds: 375,
};

/** A metric record as Powertools writes it: one directive, the service (and maybe Provider) as dimensions. */
const emf = (metrics: Record<string, number>, provider?: string) =>
  JSON.stringify({
    _aws: {
      Timestamp: 1764000000000,
      CloudWatchMetrics: [
        {
          Namespace: 'Ariadne',
          Dimensions: [provider ? ['service', 'Provider'] : ['service']],
          Metrics: Object.keys(metrics).map((Name) => ({ Name, Unit: 'Count' })),
        },
      ],
    },
    experimentId: 'e-1',
    service: 'ariadne',
    ...(provider ? { Provider: provider } : {}),
    ...metrics,
  });

describe('logs and traces of an experiment', () => {
  it('by default: the functions start and report lines only, no state machine lines in a clean run, no X-Ray', () => {
    const cost = observabilityCost(run, DEFAULT_OBSERVABILITY);
    expect(cost.lambdaSystemBytes).toBe(2_500 * lambdaSystemBytesPerInvocation(false));
    expect(lambdaSystemBytesPerInvocation(false)).toBeGreaterThan(250); // two JSON records of ~150 and ~250 bytes
    expect(lambdaSystemBytesPerInvocation(false)).toBeLessThan(600);
    expect(cost.stateMachineBytes).toBe(0);
    expect(cost.lambdaApplicationBytes).toBe(0);
    expect(cost.traces).toBe(0);
    expect(cost.xray).toBe(0);
    expect(cost.ingestion).toBeCloseTo((cost.lambdaSystemBytes / 1e9) * PRICES.logsIngestionGb, 12);
    expect(cost.total).toBeCloseTo(cost.ingestion + cost.storage, 12);
  });

  it('a failure is logged at ERROR; ALL logs every history event', () => {
    const failed = observabilityCost({ ...run, errorEvents: 3 }, DEFAULT_OBSERVABILITY);
    const perEvent = (stateMachineBytesPerEvent(arn(1)) + stateMachineBytesPerEvent(arn(1001))) / 2;
    expect(failed.stateMachineBytes).toBeCloseTo(3 * perEvent, 6);
    const all = observabilityCost(run, { ...DEFAULT_OBSERVABILITY, stateMachineLogLevel: 'ALL' });
    expect(all.stateMachineBytes).toBeGreaterThan(20_000 * 250);
    expect(all.stateMachineBytes).toBeCloseTo(20_000 * perEvent, 6);
    expect(all.total).toBeGreaterThan(5 * observabilityCost(run, DEFAULT_OBSERVABILITY).total);
  });

  it("what the handlers print is priced as Lambda's JSON records of it", () => {
    const printed = observabilityCost({ ...run, handlerLines: ['turn 1', 'turn 2'] }, DEFAULT_OBSERVABILITY);
    expect(printed.lambdaApplicationBytes).toBe(lambdaApplicationBytes('turn 1') + lambdaApplicationBytes('turn 2'));
    expect(lambdaApplicationBytes('turn 1')).toBeGreaterThan('turn 1'.length + 80); // timestamp, level, request id
  });

  it('a JSON line (a Powertools log line, a metric record) is priced as written: Lambda keeps it as it is', () => {
    const line = JSON.stringify({ level: 'INFO', message: 'turn', experimentId: 'e-1', turn: 1 });
    expect(lambdaApplicationBytes(line)).toBe(Buffer.byteLength(line));
  });

  it('the metric records make one custom metric per name and dimension values, billed per metric-hour sent', () => {
    const lines = [
      emf({ Turns: 1, InputTokens: 900 }, 'bedrock'),
      emf({ Turns: 1, InputTokens: 800 }, 'bedrock'), // the same two metrics again: no new ones
      emf({ Turns: 1 }, 'baseline'), // another Provider value: another metric
      emf({ Throttles: 2 }), // stack-wide: the service dimension only
      JSON.stringify({ level: 'INFO', message: 'turn' }), // a log line: no metric
    ];
    const cost = observabilityCost({ ...run, handlerLines: lines }, DEFAULT_OBSERVABILITY);
    expect(cost.customMetrics).toBe(4);
    // 375 s on AWS: on average 1 + 375/3600 clock hours touched, each metric billed for each
    expect(cost.metricHours).toBeCloseTo(4 * (1 + 375 / 3600), 9);
    expect(cost.metrics).toBeCloseTo((cost.metricHours / 730) * 0.3, 12);
    expect(cost.total).toBeCloseTo(cost.ingestion + cost.storage + cost.metrics, 12);
    expect(observabilityCost(run, DEFAULT_OBSERVABILITY).metrics).toBe(0); // no records, no metrics
  });

  it('tracing records one trace per execution, at $5 a million, and the trace id on every start and report', () => {
    const traced = observabilityCost(run, { ...DEFAULT_OBSERVABILITY, tracing: true });
    expect(traced.traces).toBe(2);
    expect(traced.xray).toBeCloseTo(2 * 5e-6, 12);
    expect(lambdaSystemBytesPerInvocation(true)).toBeGreaterThan(lambdaSystemBytesPerInvocation(false) + 100);
  });
});
