// What a 10,000-action experiment costs on AWS at list prices (bench/prices.ts), logs and traces included
// (bench/observability-cost.ts), from the synthesized definitions run locally over the RDS Data API (the simulator
// before the bench Postgres): nested orchestration (the default: Standard transitions per chunk, Express requests and
// duration) beside the all-Standard loop (5 transitions a turn). Model costs are not included: the random agent calls
// none. Target: nested at most $0.02 all-in.
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../core/store/database.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { TASKS } from '../core/machine/tasks.ts';
import { benchPostgres, fmt, timed } from './support.ts';
import { ASSUMPTIONS, PRICES } from './prices.ts';
import { overDataApi } from '../simulators/rds-data-sim.ts';
import { DEFAULT_AUTO_PAUSE } from '../lib/database.ts';
import { MAX_HISTORY_EVENTS } from '../core/machine/history-events.ts';
import { DEFAULT_OBSERVABILITY, LOG_RETENTION } from '../lib/observability.ts';
import { customMetricCount } from '../core/telemetry/metrics.ts';
import { CHUNK_MARGIN_SECONDS, EXPRESS_MAX_SECONDS } from '../core/config/budgets.ts';
import type { Orchestration } from '../core/machine/states.ts';
import type { ChunkReport } from '../state-machine/local-chunks.ts';
import { observabilityCost, type ObservedRun } from './observability-cost.ts';
import { powertoolsTelemetry } from '../functions/powertools-telemetry.ts';

/** What Lambda's context gives Powertools' Logger for every line (request id, function, memory, cold start). */
const LAMBDA_CONTEXT = {
  awsRequestId: '8f5f3b6e-1c2d-4e5f-9a0b-1c2d3e4f5a6b',
  functionName: 'Ariadne-HandlersInvokeBaselineAgentFnE006C576-AbCdEf123456',
  functionVersion: '$LATEST',
  invokedFunctionArn:
    'arn:aws:lambda:us-east-1:123456789012:function:Ariadne-HandlersInvokeBaselineAgentFnE006C576-AbCdEf123456',
  memoryLimitInMB: '512',
};

const LOG_DAYS = Number(LOG_RETENTION);

/** Local-engine events an ERROR-level state machine log keeps (failures, retries, a failed or stopped execution). */
const ERROR_EVENTS = new Set([
  'StateFailed',
  'StateRetried',
  'ExecutionFailed',
  'ExecutionAborted',
  'ExecutionTimeout',
]);

/**
 * Everything written to stdout and stderr while `fn` runs, as lines: what a handler prints is what Lambda sends to
 * CloudWatch Logs (console methods write there too). Counted, not shown: a line per turn and a metric record per
 * invocation would bury the bench's own output.
 */
function capturingOutput(): { lines: string[]; during<T>(fn: () => Promise<T>): Promise<T> } {
  const lines: string[] = [];
  return {
    lines,
    async during(fn) {
      const streams = [process.stdout, process.stderr];
      const writes = streams.map((s) => s.write.bind(s));
      streams.forEach((s) => {
        s.write = (chunk: string | Uint8Array, ...rest: unknown[]) => {
          lines.push(
            ...String(chunk)
              .split('\n')
              .filter((l) => l !== ''),
          );
          const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
          done?.();
          return true;
        };
      });
      try {
        return await fn();
      } finally {
        streams.forEach((s, i) => (s.write = writes[i]));
      }
    },
  };
}

const PRICE = { transition: PRICES.sfnStateTransition, gbSecond: 0.0000133334, request: 0.2 / 1e6 };
const LAMBDA_GB = 0.5; // memorySize 512 in lib/handler-functions.ts

/**
 * Express bills each chunk a request and its duration, rounded up to 100 ms, at 64 MB (aws-facts:
 * sfn.express-billing-increments). On AWS a chunk runs its turns at ASSUMPTIONS.awsSecondsPerTurn each and hands back
 * before 5 minutes (core/engine/chunk-pace.ts), so its chunks are that many turns, not the local run's (whose turns
 * take milliseconds and fit one chunk).
 */
function expressCost(turns: number, local: ChunkReport[]) {
  const perTurn = ASSUMPTIONS.awsSecondsPerTurn;
  const turnsPerChunk = Math.floor((EXPRESS_MAX_SECONDS - CHUNK_MARGIN_SECONDS - 2 * perTurn) / perTurn);
  const requests = Math.max(local.length, Math.ceil(turns / turnsPerChunk));
  const step = PRICES.sfnExpressBilledDurationMs;
  const billedSeconds = (Math.ceil((turns * perTurn * 1000) / step / requests) * step * requests) / 1000;
  const gbSeconds = billedSeconds * (PRICES.sfnExpressBilledMemoryMb / 1024);
  return {
    requests,
    turnsPerChunk,
    billedSeconds,
    usd: { requests: requests * PRICES.sfnExpressRequest, duration: gbSeconds * PRICES.sfnExpressGbSecond },
  };
}

export async function costBench(): Promise<Record<string, number>> {
  const standard = await experimentCost('standard', false);
  const nested = await experimentCost('nested', true);
  console.log(
    `  nested against all-Standard: $${fmt(nested.allIn, 6)} against $${fmt(standard.allIn, 6)} all-in ` +
      `(${fmt(nested.allIn / standard.allIn, 3)} of it); Step Functions $${fmt(nested.sfn, 6)} against ` +
      `$${fmt(standard.sfn, 6)} (${fmt(nested.sfn / standard.sfn, 3)})  (target <= $0.02 all-in)`,
  );
  return {
    ...nested,
    standardAllIn: standard.allIn,
    standardTransitionsPerTurn: standard.transitionsPerTurn,
    ratio: nested.allIn / standard.allIn,
  };
}

async function experimentCost(orchestration: Orchestration, print: boolean): Promise<Record<string, number>> {
  const pgServer = await benchPostgres();
  const db = await overDataApi(
    await openDatabase({ url: pgServer.url, schema: `bench_cost_${orchestration}`, poolSize: 4 }),
    { url: pgServer.url },
  );
  const log = print ? console.log : () => {};
  try {
    const entered = new Map<string, number>();
    const handlerMs = new Map<string, number>();
    const output = capturingOutput();
    // the functions' own telemetry, as each writes it in Lambda: their log lines and metric records are priced below
    const telemetry = powertoolsTelemetry();
    let errorEvents = 0;
    const standard = new Map<string, number>();
    const run = await timed(() =>
      runLocalExperiment(
        {
          agent: 'random',
          agentSeed: 1,
          maze: { generator: 'perfect', size: 101, seed: 1 },
          config: { max_moves: 10_000 },
        },
        {
          db,
          telemetry,
          orchestration,
          onEvent: (e) => {
            if (e.type === 'StateEntered' && e.state) {
              entered.set(e.state.name, (entered.get(e.state.name) ?? 0) + 1);
              // a chunk's states are Express's: billed by request and duration, not one by one
              if (e.machine !== 'chunk') standard.set(e.state.name, (standard.get(e.state.name) ?? 0) + 1);
            }
            if (ERROR_EVENTS.has(e.type)) errorEvents++;
          },
          wrap: (state, handler) => async (event) => {
            const t = performance.now();
            try {
              return await output.during(async () => {
                telemetry.begin(LAMBDA_CONTEXT);
                try {
                  return await handler(event);
                } finally {
                  telemetry.end();
                }
              });
            } finally {
              handlerMs.set(state, (handlerMs.get(state) ?? 0) + performance.now() - t);
            }
          },
        },
      ),
    );
    const turns = run.value.summary!.turns;
    const transitions = [...standard.values()].reduce((a, b) => a + b, 0);
    const express = expressCost(turns, run.value.chunks);
    // on AWS a chunk ends before 5 minutes: each chunk the local run did not need costs its Standard states again
    const chunkStates = ['RunChunk', 'ChunkEnded', 'ChunkResult', 'ConditionCheck', 'ChunkLoop'];
    const perChunk = chunkStates.reduce((n, name) => n + (standard.get(name) ?? 0), 0) / run.value.chunks.length;
    const awsTransitions = transitions + Math.max(0, express.requests - run.value.chunks.length) * perChunk;
    const history = run.value.historyEvents.reduce((a, b) => a + b, 0);
    const mostHistory = Math.max(...run.value.historyEvents);
    const perTurnStates = ['ProviderRouter', 'InvokeBaselineAgent', 'CheckProgress', 'ConditionCheck', 'ContinueLoop'];
    const loopTransitions = perTurnStates.reduce((n, s) => n + (entered.get(s) ?? 0), 0) / turns;
    const invocations = [...entered].filter(([name]) => name in TASKS).reduce((n, [, c]) => n + c, 0);
    // Lambda bills whole milliseconds per invocation: round each task's mean up.
    const gbSeconds = [...handlerMs].reduce(
      (n, [state, ms]) =>
        n + (((entered.get(state) ?? 0) * Math.ceil(ms / (entered.get(state) ?? 1))) / 1000) * LAMBDA_GB,
      0,
    );
    // Every Data API call of the run, each billed per started 32 KB of its request.
    const calls = db.sim.requests;
    const dataApiUnits = calls.reduce(
      (n, c) => n + Math.max(1, Math.ceil(Buffer.byteLength(JSON.stringify(c.body)) / PRICES.dataApiRequestUnitBytes)),
      0,
    );
    // awake for the run, then for the idle time before it pauses again (the stack's default)
    const awakeSeconds = turns * ASSUMPTIONS.awsSecondsPerTurn + DEFAULT_AUTO_PAUSE.toSeconds();
    const nested = run.value.chunks.length > 0;
    const cost = {
      sfn: (nested ? awsTransitions : transitions) * PRICE.transition,
      express: nested ? express.usd.requests + express.usd.duration : 0,
      lambdaCompute: gbSeconds * PRICE.gbSecond,
      lambdaRequests: invocations * PRICE.request,
      dataApi: (dataApiUnits / 1e6) * PRICES.dataApiMillionRequests,
      aurora: ((awakeSeconds * ASSUMPTIONS.awakeAcus) / 3600) * PRICES.auroraServerlessV2AcuHour,
    };
    const total = Object.values(cost).reduce((a, b) => a + b, 0);
    const observed: ObservedRun = {
      executionArns: run.value.executions,
      historyEvents: history,
      errorEvents,
      invocations,
      handlerLines: output.lines,
      awsSeconds: turns * ASSUMPTIONS.awsSecondsPerTurn,
    };
    const logs = observabilityCost(observed, DEFAULT_OBSERVABILITY);
    const allLogs = observabilityCost(observed, { ...DEFAULT_OBSERVABILITY, stateMachineLogLevel: 'ALL' });
    const traced = observabilityCost(observed, { ...DEFAULT_OBSERVABILITY, tracing: true });
    const everything = observabilityCost(observed, { tracing: true, stateMachineLogLevel: 'ALL' });
    const allIn = total + logs.total;
    log(
      'cost: a 10,000-action experiment (random agent, perfect 101x101) through the synthesized ' +
        `definitions, run locally: orchestration ${orchestration}`,
    );
    log(
      `  ${fmt(run.value.summary!.actions)} actions, ${fmt(turns)} turns, ` +
        `${fmt(run.value.executions.length)} executions (continue as new), ${fmt(run.seconds, 2)} s`,
    );
    log(
      `  Standard state transitions: ${fmt(transitions)} in the local run, ${fmt(transitions / turns, 3)} per turn ` +
        `(all-Standard: ${fmt(loopTransitions, 2)} per turn in the loop when no chunk runs them)`,
    );
    if (nested)
      log(
        `  Express chunks: ${fmt(run.value.chunks.length)} in the local run (${fmt(
          run.value.chunks.reduce((n, c) => n + c.ms, 0) / 1000,
          2,
        )} s); on AWS at ${ASSUMPTIONS.awsSecondsPerTurn} s a turn, ${fmt(express.turnsPerChunk)} turns a chunk: ` +
          `${fmt(express.requests)} requests, ${fmt(express.billedSeconds, 1)} s billed at ` +
          `${PRICES.sfnExpressBilledMemoryMb} MB, and ${fmt(awsTransitions)} Standard transitions`,
      );
    log(
      `  AWS history events (counted from the local engine's events): ${fmt(history)} in all, ` +
        `${fmt(history / turns, 1)} per turn, at most ${fmt(mostHistory)} in one execution ` +
        `(cap ${fmt(MAX_HISTORY_EVENTS)}, ${fmt(mostHistory / MAX_HISTORY_EVENTS, 2)} of it)`,
    );
    log(
      `  Lambda: ${fmt(invocations)} invocations, ${fmt(gbSeconds, 1)} GB-s at the local handler times ` +
        `(in AWS, Data API round trips make them longer)`,
    );
    log(
      `  Data API: ${fmt(calls.length)} calls (${fmt(calls.length / turns, 2)} per turn), ` +
        `${fmt(dataApiUnits)} billed 32 KB requests`,
    );
    log(
      `  Aurora: awake ${fmt(awakeSeconds)} s at ${ASSUMPTIONS.awakeAcus} ACU ` +
        `(assumed ${ASSUMPTIONS.awsSecondsPerTurn} s per turn on AWS, then ${DEFAULT_AUTO_PAUSE.toMinutes()} min ` +
        'until it pauses) = ' +
        `${fmt(awakeSeconds * ASSUMPTIONS.awakeAcus)} ACU-seconds`,
    );
    const row = (label: string, usd: number) =>
      log(`    ${label.padEnd(26)} $${fmt(usd, 6).padStart(10)}  ${fmt((usd / total) * 100, 1).padStart(5)}%`);
    log('  list-price cost of one 10,000-action experiment:');
    row('Step Functions Standard', cost.sfn);
    if (nested) row('Step Functions Express', cost.express);
    row('Lambda compute', cost.lambdaCompute);
    row('Lambda requests', cost.lambdaRequests);
    row('Data API requests', cost.dataApi);
    row('Aurora ACU-seconds', cost.aurora);
    log(
      `    ${'total'.padEnd(26)} $${fmt(total, 6).padStart(10)}  ` +
        `($${fmt((total / run.value.summary!.actions) * 1000, 5)} per 1,000 actions)`,
    );
    const kb = (n: number) => `${fmt(n / 1024, 1)} KiB`;
    const usd = (n: number) => `$${fmt(n, 6)}`;
    log(
      `  logs and traces (lib/observability.ts), counted in this run, record sizes built from AWS's documented ` +
        'fields (bench/observability-cost.ts):',
    );
    log(
      `    handlers printed ${fmt(output.lines.length)} lines (${fmt(output.lines.length / turns, 2)} per turn: ` +
        `the turn line and its metric record), ${kb(logs.lambdaApplicationBytes)}; Lambda start and report lines ` +
        `${kb(logs.lambdaSystemBytes)} (${fmt(invocations)} invocations, system log level INFO)`,
    );
    const allMetricsMonth = customMetricCount() * PRICES.customMetricMonth;
    log(
      `    custom metrics (embedded metric format): ${fmt(logs.customMetrics)} sent by this run, ` +
        `${fmt(logs.metricHours, 2)} metric-hours (${fmt(observed.awsSeconds)} s on AWS) ${usd(logs.metrics)}; ` +
        `at most ${customMetricCount()} for the stack, $${fmt(allMetricsMonth, 2)} a month were all sent every ` +
        'hour; none when idle',
    );
    log(
      `    state machines at ERROR (default): ${fmt(errorEvents)} failure events, ${kb(logs.stateMachineBytes)}; ` +
        `at ALL: ${fmt(history)} events, ${kb(allLogs.stateMachineBytes)}`,
    );
    const traceIds = traced.lambdaSystemBytes - logs.lambdaSystemBytes;
    log(
      `    X-Ray, off by default: with -c tracing=true ${fmt(traced.traces)} traces (one per execution) ` +
        `${usd(traced.xray)}, and the start and report lines carry the trace id (+${kb(traceIds)})`,
    );
    row('CloudWatch Logs (default)', logs.ingestion + logs.storage);
    row('CloudWatch metrics (EMF)', logs.metrics);
    row('X-Ray (off by default)', logs.xray);
    log(
      `    ${'all-in total'.padEnd(26)} $${fmt(allIn, 6).padStart(10)}  ` +
        `($${fmt((allIn / run.value.summary!.actions) * 1000, 5)} per 1,000 actions); ` +
        `logs $${fmt(logs.ingestion, 6)} ingestion + $${fmt(logs.storage, 6)} storage (${LOG_DAYS} days)`,
    );
    log(
      `    opt-in: -c stateMachineLogLevel=ALL +${usd(allLogs.total - logs.total)}, -c tracing=true ` +
        `+${usd(traced.total - logs.total)}, both ${usd(total + everything.total)} all-in`,
    );
    return {
      sfn: cost.sfn + cost.express,
      transitionsPerTurn: transitions / turns,
      historyPerTurn: history / turns,
      dataApiCallsPerTurn: calls.length / turns,
      total,
      logs: logs.total,
      metrics: logs.metrics,
      linesPerTurn: output.lines.length / turns,
      allIn,
    };
  } finally {
    await db.close();
    await pgServer.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await costBench();
