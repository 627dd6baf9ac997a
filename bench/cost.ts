// State transitions and history events per turn, from the synthesized
// definition run locally over the RDS Data API (RdsDataSim in front of the
// bench Postgres, as the Lambdas reach Aurora), and what a 10,000-action
// experiment costs on AWS at list prices (us-east-1, 2026: Step Functions
// Standard $0.025 per 1,000 state transitions; Lambda arm64 $0.0000133334 per
// GB-second and $0.20 per million requests; Data API requests and Aurora
// ACU-seconds from bench/prices.ts). Model costs are not included: the random
// agent calls none. Target: at most 5 state transitions per turn.
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../lambdas/store/database.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { TASKS } from '../state-machine/tasks.ts';
import { benchPostgres, fmt, timed } from './support.ts';
import { ASSUMPTIONS, PRICES } from './prices.ts';
import { overDataApi } from '../simulators/rds-data-sim.ts';
import { DEFAULT_AUTO_PAUSE } from '../lib/database.ts';
import { MAX_HISTORY_EVENTS } from '../state-machine/history-events.ts';

const PRICE = { transition: 0.025 / 1000, gbSecond: 0.0000133334, request: 0.2 / 1e6 };
const LAMBDA_GB = 0.5; // memorySize 512 in lib/handler-functions.ts

export async function costBench(): Promise<Record<string, number>> {
  const pgServer = await benchPostgres();
  const db = await overDataApi(await openDatabase({ url: pgServer.url, schema: 'bench_cost', poolSize: 4 }), {
    url: pgServer.url,
  });
  try {
    const entered = new Map<string, number>();
    const handlerMs = new Map<string, number>();
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
          onEvent: (e) => {
            if (e.type === 'StateEntered' && e.state) entered.set(e.state.name, (entered.get(e.state.name) ?? 0) + 1);
          },
          wrap: (state, handler) => async (event) => {
            const t = performance.now();
            try {
              return await handler(event);
            } finally {
              handlerMs.set(state, (handlerMs.get(state) ?? 0) + performance.now() - t);
            }
          },
        },
      ),
    );
    const turns = run.value.summary!.turns;
    const transitions = [...entered.values()].reduce((a, b) => a + b, 0);
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
    const cost = {
      sfn: transitions * PRICE.transition,
      lambdaCompute: gbSeconds * PRICE.gbSecond,
      lambdaRequests: invocations * PRICE.request,
      dataApi: (dataApiUnits / 1e6) * PRICES.dataApiMillionRequests,
      aurora: ((awakeSeconds * ASSUMPTIONS.awakeAcus) / 3600) * PRICES.auroraServerlessV2AcuHour,
    };
    const total = Object.values(cost).reduce((a, b) => a + b, 0);
    console.log(
      'cost: a 10,000-action experiment (random agent, perfect 101x101) through the synthesized ' +
        'definition, run locally',
    );
    console.log(
      `  ${fmt(run.value.summary!.actions)} actions, ${fmt(turns)} turns, ` +
        `${fmt(run.value.executions.length)} executions (continue as new), ${fmt(run.seconds, 2)} s`,
    );
    console.log(
      `  state transitions: ${fmt(transitions)} in all, ${fmt(loopTransitions, 2)} per turn in the loop  (target <= 5)`,
    );
    console.log(
      `  AWS history events (counted from the local engine's events): ${fmt(history)} in all, ` +
        `${fmt(history / turns, 1)} per turn, at most ${fmt(mostHistory)} in one execution ` +
        `(cap ${fmt(MAX_HISTORY_EVENTS)}, ${fmt(mostHistory / MAX_HISTORY_EVENTS, 2)} of it)`,
    );
    console.log(
      `  Lambda: ${fmt(invocations)} invocations, ${fmt(gbSeconds, 1)} GB-s at the local handler times ` +
        `(in AWS, Data API round trips make them longer)`,
    );
    console.log(
      `  Data API: ${fmt(calls.length)} calls (${fmt(calls.length / turns, 2)} per turn), ` +
        `${fmt(dataApiUnits)} billed 32 KB requests`,
    );
    console.log(
      `  Aurora: awake ${fmt(awakeSeconds)} s at ${ASSUMPTIONS.awakeAcus} ACU ` +
        `(assumed ${ASSUMPTIONS.awsSecondsPerTurn} s per turn on AWS, then ${DEFAULT_AUTO_PAUSE.toMinutes()} min ` +
        'until it pauses) = ' +
        `${fmt(awakeSeconds * ASSUMPTIONS.awakeAcus)} ACU-seconds`,
    );
    const row = (label: string, usd: number) =>
      console.log(`    ${label.padEnd(26)} $${fmt(usd, 6).padStart(10)}  ${fmt((usd / total) * 100, 1).padStart(5)}%`);
    console.log('  list-price cost of one 10,000-action experiment:');
    row('Step Functions', cost.sfn);
    row('Lambda compute', cost.lambdaCompute);
    row('Lambda requests', cost.lambdaRequests);
    row('Data API requests', cost.dataApi);
    row('Aurora ACU-seconds', cost.aurora);
    console.log(
      `    ${'total'.padEnd(26)} $${fmt(total, 6).padStart(10)}  ` +
        `($${fmt((total / run.value.summary!.actions) * 1000, 5)} per 1,000 actions)`,
    );
    return {
      transitionsPerTurn: loopTransitions,
      historyPerTurn: history / turns,
      dataApiCallsPerTurn: calls.length / turns,
      total,
    };
  } finally {
    await db.close();
    await pgServer.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await costBench();
