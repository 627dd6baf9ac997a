// A chaos soak: BENCH_SOAK_RUNS baseline runs and a companion sweep of model runs against the Ollama simulator,
// through the real `ariadne sweep` on a restartable embedded Postgres, first undisturbed, then with the server
// restarted, the sweep killed and stopped, and the model server answering 429 storms, slow replies and 503s. Chaos is
// triggered by progress, not the clock, so a slower machine sees the same schedule. Printed, not asserted: runs lost
// (goal 0), runs equal to the undisturbed sweep's (goal all), commands needed and time overhead.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, type Database } from '../core/store/database.ts';
import { envInteger } from '../core/config/environment.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import { endedRuns, ownPostgres, type OwnPostgres } from '../test/support/own-postgres.ts';
import { recordFigure } from './figures.ts';
import { fmt } from './support.ts';

const BASELINE = 'soak';
const MODELS = 'soak-models';
const MODEL_RUNS = 40;
const CONCURRENCY = 8;
/** One model per run: the simulated model keeps a map per model, so a run played alone plays the same every time. */
const models = Array.from({ length: MODEL_RUNS }, (_, i) => `soak-${i}:1b`);

function specs(dir: string, runs: number, ollamaHost: string) {
  // runs = 2 agents x seeds x repeats
  const seeds = 25;
  const repeats = Math.max(1, Math.round(runs / (2 * seeds)));
  const baseline = join(dir, 'soak.yaml');
  writeFileSync(
    baseline,
    `sweep: ${BASELINE}
agents: [{ agent: random }, { agent: frontier }]
mazes: { generators: [medium], sizes: [15], seeds: [${Array.from({ length: seeds }, (_, i) => i + 1).join(', ')}] }
config: { max_moves: 300 }
repeats: ${repeats}
max_concurrency: ${CONCURRENCY}
`,
  );
  const model = join(dir, 'soak-models.yaml');
  writeFileSync(
    model,
    `sweep: ${MODELS}
agents:
${models.map((m) => `  - { agent: ollama, model: "${m}" }`).join('\n')}
mazes: { generators: [medium], sizes: [11], seeds: [1] }
config: { max_moves: 40, ollama: { host: "${ollamaHost}" }, retry: { base_delay_ms: 200, timeout_ms: 20000 } }
repeats: 1
max_concurrency: 4
`,
  );
  return { baseline, model, baselineRuns: 2 * seeds * repeats };
}

/** Each run's latest attempt's actions, keyed by cell and repeat (attempts have ids of their own), and its status. */
async function runsOf(db: Database, sweep: string) {
  const { rows } = await db.query<{ key: string; status: string; log: string | null }>(
    `SELECT e.sweep_cell || '/' || e.sweep_repeat AS key, e.status,
       (SELECT string_agg(concat_ws(' ', turn_number, call_index, step_number, tool, outcome, from_x, from_y, to_x,
          to_y), ';' ORDER BY turn_number, call_index) FROM actions a WHERE a.experiment_id = e.id) AS log
     FROM experiments e
     WHERE e.sweep_id = $1 AND e.sweep_attempt = (SELECT max(sweep_attempt) FROM experiments x
       WHERE x.sweep_id = e.sweep_id AND x.sweep_cell = e.sweep_cell AND x.sweep_repeat = e.sweep_repeat)`,
    [sweep],
  );
  return new Map(rows.map((r) => [r.key, r]));
}

const ENTRY = fileURLToPath(new URL('../bin/ariadne.js', import.meta.url));

interface Command {
  child: ChildProcess;
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/** `ariadne sweep FILE` as a user runs it, on the soak's server and schema. */
function sweepCommand(file: string, url: string, schema: string): Command {
  const child = spawn(process.execPath, [ENTRY, 'sweep', file], {
    env: { ...process.env, DATABASE_URL: url, DATABASE_SCHEMA: schema },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + String(d)).slice(-20_000)));
  return {
    child,
    ended: new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr }))),
  };
}

export async function soakBench(): Promise<Record<string, number>> {
  const runs = envInteger('BENCH_SOAK_RUNS', process.env, 100) ?? 1_000;
  const server: OwnPostgres = await ownPostgres();
  const dir = mkdtempSync(join(tmpdir(), 'ariadne-soak-'));
  const calmSim = new OllamaSim({ models });
  const chaosSim = new OllamaSim({ models });
  const [calmHost, chaosHost] = await Promise.all([calmSim.listen(), chaosSim.listen()]);
  const calmSpecs = specs(join(dir), runs, calmHost);
  const chaosDir = mkdtempSync(join(dir, 'chaos-'));
  const chaosSpecs = specs(chaosDir, runs, chaosHost);
  const sweep = (file: string, schema: string) => sweepCommand(file, server.url, schema);
  const dbs: Database[] = [];
  try {
    // undisturbed: both sweeps at once, as the chaotic ones run
    const calmStart = Date.now();
    const secondsSince =
      (start: number) =>
      <T>(r: T) => ({ r, seconds: (Date.now() - start) / 1000 });
    const calmTimed = await Promise.all([
      sweep(calmSpecs.baseline, 'calm').ended.then(secondsSince(calmStart)),
      sweep(calmSpecs.model, 'calm').ended.then(secondsSince(calmStart)),
    ]);
    const calm = calmTimed.map((t) => t.r);
    const calmSeconds = { baseline: calmTimed[0].seconds, model: calmTimed[1].seconds };
    for (const r of calm) if (r.code !== 0) throw new Error(`the undisturbed sweep failed: ${r.stderr.slice(-2000)}`);

    const chaos = await openDatabase({ url: server.url, schema: 'chaos', migrate: false });
    dbs.push(chaos);
    const chaosStart = Date.now();
    const commands = { [BASELINE]: 0, [MODELS]: 0 };
    const events: string[] = [];
    const say = (what: string) => {
      events.push(`${fmt((Date.now() - chaosStart) / 1000, 1)} s: ${what}`);
    };
    // the model sweep: a storm of 429s and slow replies from the start, a minute of 503s once a quarter is done
    chaosSim.faults = Array.from({ length: 30 }, () => ({ kind: 'status' as const, status: 429 }));
    chaosSim.always = { kind: 'slow', ms: 300 };
    const modelSweep = (async () => {
      let outageDone = false;
      for (;;) {
        commands[MODELS]++;
        const c = sweep(chaosSpecs.model, 'chaos');
        const watch = (async () => {
          while (c.child.exitCode === null && !outageDone) {
            if (((await endedRuns(chaos, MODELS)) ?? 0) >= MODEL_RUNS / 4) {
              outageDone = true;
              chaosSim.always = { kind: 'status', status: 503 };
              say('model server: 503 to every call for 60 s');
              await new Promise((r) => setTimeout(r, 60_000));
              chaosSim.always = undefined;
              say('model server: answering again');
            }
            await new Promise((r) => setTimeout(r, 200));
          }
        })();
        const r = await c.ended;
        await watch;
        if (r.code === 0) return;
        say(`model sweep command ${commands[MODELS]} ended ${r.code}: run again`);
      }
    })();
    // the baseline sweep: restarts of the server, a kill and a stop of the process, each at its share of runs done
    const total = chaosSpecs.baselineRuns;
    const schedule: Array<{ at: number; what: 'restart' | 'SIGKILL' | 'SIGTERM' }> = [
      { at: 0.1, what: 'restart' },
      { at: 0.3, what: 'SIGKILL' },
      { at: 0.45, what: 'restart' },
      { at: 0.6, what: 'SIGTERM' },
      { at: 0.75, what: 'restart' },
    ];
    const baselineSweep = (async () => {
      for (;;) {
        commands[BASELINE]++;
        const c = sweep(chaosSpecs.baseline, 'chaos');
        while (c.child.exitCode === null && c.child.signalCode === null && schedule.length > 0) {
          const done = await endedRuns(chaos, BASELINE);
          if (done !== null && done >= schedule[0].at * total) {
            const { what } = schedule.shift()!;
            say(`${what} at ${done} of ${total} runs done`);
            if (what === 'restart') await server.restart();
            else {
              c.child.kill(what);
              break;
            }
          }
          await new Promise((r) => setTimeout(r, 100));
        }
        const r = await c.ended;
        if (r.code === 0) return;
        say(`baseline sweep command ${commands[BASELINE]} ended ${r.code ?? r.signal}: run again`);
        if (r.code !== null && r.code !== 143 && r.code !== 1)
          throw new Error(`the chaotic sweep ended ${r.code}: ${r.stderr.slice(-2000)}`);
      }
    })();
    const [baselineTime, modelTime] = await Promise.all([
      baselineSweep.then(secondsSince(chaosStart)),
      modelSweep.then(secondsSince(chaosStart)),
    ]);
    const chaosSeconds = { baseline: baselineTime.seconds, model: modelTime.seconds };

    const calmDb = await openDatabase({ url: server.url, schema: 'calm', migrate: false });
    dbs.push(calmDb);
    const compare = async (sweepId: string, expected: number) => {
      const [a, b] = await Promise.all([runsOf(calmDb, sweepId), runsOf(chaos, sweepId)]);
      let lost = expected - b.size;
      let identical = 0;
      const differing: string[] = [];
      for (const [key, run] of b) {
        if (run.status === 'running' || run.status === 'failed') lost++;
        if (a.get(key)?.log === run.log && a.get(key)?.status === run.status) identical++;
        else differing.push(key);
      }
      // where a run differs: its first action unlike the undisturbed run's, and the turns that waited out an outage
      for (const key of differing.slice(0, 3)) {
        const mine = (b.get(key)?.log ?? '').split(';');
        const theirs = (a.get(key)?.log ?? '').split(';');
        const at = mine.findIndex((x, i) => x !== theirs[i]);
        const [cell, repeat] = key.split('/');
        const waited = await chaos.query<{ turns: string | null }>(
          `SELECT string_agg(t.turn_number || ' (' || t.provider_waits || ' waits)', ', ') AS turns
           FROM turns t JOIN experiments e ON e.id = t.experiment_id
           WHERE e.sweep_id = $1 AND e.sweep_cell = $2 AND e.sweep_repeat = $3 AND t.provider_waits > 0`,
          [sweepId, Number(cell), Number(repeat)],
        );
        say(
          `${sweepId} run ${key} differs from action ${at + 1}: "${mine[at] ?? '(none)'}" against ` +
            `"${theirs[at] ?? '(none)'}"; turns that waited: ${waited.rows[0].turns ?? 'none'}`,
        );
      }
      // runs that ended failed (an error, not navigation) and were run again as a new attempt by a later command
      const { rows } = await chaos.query<{ n: number; reasons: string | null }>(
        `SELECT count(*)::int AS n, string_agg(DISTINCT split_part(failure_reason, ':', 1), ', ') AS reasons
         FROM experiments WHERE sweep_id = $1 AND status = 'failed'`,
        [sweepId],
      );
      return { lost, identical, runs: expected, failedAttempts: rows[0].n, reasons: rows[0].reasons };
    };
    const base = await compare(BASELINE, total);
    const model = await compare(MODELS, MODEL_RUNS);
    const kills = 2; // the SIGKILL and the SIGTERM: each needs the command again
    console.log(
      `soak: ${fmt(total)} baseline runs and ${MODEL_RUNS} model runs (Ollama simulator), ${CONCURRENCY} + 4 at a ` +
        `time, embedded PostgreSQL restarted 3 times, the baseline sweep killed once and stopped once`,
    );
    for (const e of events) console.log(`  ${e}`);
    console.log(
      `  baseline sweep: runs lost ${base.lost} (goal 0); logs as undisturbed ${fmt(base.identical)}/${fmt(total)} ` +
        `(goal all); commands ${commands[BASELINE]} (goal ${1 + kills}: one, and one after each kill or stop); ` +
        `attempts that failed and were run again: ${base.failedAttempts}`,
    );
    console.log(
      `  model sweep: runs lost ${model.lost} (goal 0); logs as undisturbed ${model.identical}/${MODEL_RUNS} ` +
        `(goal all); commands ${commands[MODELS]} (goal 1); attempts that failed and were run again: ` +
        `${model.failedAttempts}${model.reasons ? ` (${model.reasons})` : ''}`,
    );
    const times = (k: 'baseline' | 'model') =>
      `${fmt(calmSeconds[k], 1)} s undisturbed, ${fmt(chaosSeconds[k], 1)} s under chaos ` +
      `(${fmt(chaosSeconds[k] / calmSeconds[k], 2)}x)`;
    console.log(`  time: baseline sweep ${times('baseline')}; model sweep ${times('model')}, the minute of 503s in it`);
    recordFigure({
      what: `soak: runs finished as undisturbed, of ${fmt(total + MODEL_RUNS)}`,
      measured: (total + MODEL_RUNS - base.lost - model.lost) / (total + MODEL_RUNS),
      target: 1,
      unit: '',
      higherIsBetter: true,
    });
    recordFigure({
      what: 'soak: runs whose log equals the undisturbed sweep',
      measured: (base.identical + model.identical) / (total + MODEL_RUNS),
      target: 1,
      unit: '',
      higherIsBetter: true,
    });
    return {
      lost: base.lost + model.lost,
      identical: base.identical + model.identical,
      commands: commands[BASELINE] + commands[MODELS],
      overhead: chaosSeconds.baseline / calmSeconds.baseline,
    };
  } finally {
    for (const d of dbs) await d.close().catch(() => undefined);
    await Promise.all([calmSim.close(), chaosSim.close()]);
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await soakBench();
