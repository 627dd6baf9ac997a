// A 10,000-action experiment (random agent, 101x101 perfect maze) through the local state machine on the embedded
// Postgres, against writing the same rows with plain batched pg inserts; also replays the run's turn statements with
// and without the kept totals' upserts (migration 017) to price them. BENCH_ENGINE_ACTIONS changes the size.
// Targets: ratio to per turn >= 0.9, to bulk >= 0.3, the whole experiment under 15 s.
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { openDatabase, type Database } from '../core/store/database.ts';
import { compileModule } from '../bin/compile-cli.ts';
import type { RunnerReply, RunnerRequest } from './engine-runner.ts';
import { experimentDefinition } from '../state-machine/definition.ts';
import { withoutTotals } from '../core/store/turn-sql.ts';
import { envInteger } from '../core/config/environment.ts';
import { recordFigure } from './figures.ts';
import { benchPostgres, fmt, timed } from './support.ts';

const ACTION_COLUMNS = [
  'experiment_id',
  'turn_number',
  'call_index',
  'step_number',
  'tool',
  'arguments',
  'reasoning',
  'assistant_text',
  'parsed_from_text',
  'executed',
  'success',
  'outcome',
  'message',
  'from_x',
  'from_y',
  'to_x',
  'to_y',
  'vision',
  'new_tiles_seen',
  'recalled',
  'goal_found',
];
const JSON_COLUMNS = new Set(['arguments', 'vision', 'recalled', 'config', 'game_state', 'halted_by']);

function multiRowInsert(
  table: string,
  columns: string[],
  rows: Record<string, unknown>[],
): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const tuples = rows.map(
    (row) =>
      `(${columns
        .map((c) => {
          const v = row[c];
          values.push(JSON_COLUMNS.has(c) && v !== null ? JSON.stringify(v) : v);
          return `$${values.length}`;
        })
        .join(', ')})`,
  );
  return { text: `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`, values };
}

const REPEATS = 7;
/** Engine runs before the measured ones. */
const WARM_UP = 2;
const PER_TURN_TARGET = 0.9;

/** Wall time, and CPU seconds of this process and of the embedded server (null when not ours). */
async function measured<T>(pgCpu: () => number | null, fn: () => Promise<T>) {
  const cpu0 = process.cpuUsage();
  const pg0 = pgCpu();
  const { value, seconds } = await timed(fn);
  const cpu = process.cpuUsage(cpu0);
  const pg1 = pgCpu();
  return {
    value,
    seconds,
    nodeCpu: (cpu.user + cpu.system) / 1e6,
    pgCpu: pg0 === null || pg1 === null ? null : pg1 - pg0,
  };
}

function median<T extends { seconds: number }>(runs: T[]): T {
  return [...runs].sort((a, b) => a.seconds - b.seconds)[Math.floor(runs.length / 2)];
}

async function copyTargetSchema(url: string, name: string): Promise<Database> {
  return openDatabase({ url, schema: name, poolSize: 1 });
}

/**
 * The runner and its store as `ariadne run` and `ariadne sweep` execute them: compiled by esbuild as npm install
 * compiles the CLI (into dist/, generated), in a process of its own (bench/engine-runner.ts says why). Under tsx the
 * same run costs about 0.1-0.15 ms more a turn (its transform wraps every function it creates in a naming call).
 */
async function compiledRunner(url: string) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const file = fileURLToPath(await compileModule('bench/engine-runner.ts', join(root, 'dist', 'bench')));
  const child = fork(file, [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const run = (input: RunnerRequest['input'], record = false) =>
    new Promise<RunnerReply>((resolve, reject) => {
      // a process that dies mid-run (killed, out of memory) answers nothing: its exit fails the run
      const died = (code: number | null, signal: string | null) =>
        reject(new Error(`the engine's process ended during a run (code ${code}, signal ${signal})`));
      child.once('exit', died);
      child.once('message', (reply: RunnerReply) => {
        child.off('exit', died);
        if (reply.error) reject(new Error(`the engine's process: ${reply.error}`));
        else resolve(reply);
      });
      child.send({ url, schema: 'bench_engine', input, record } satisfies RunnerRequest);
    });
  const close = () =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.send('exit');
    });
  return { run, close };
}

export async function engineBench(): Promise<Record<string, number>> {
  const pgServer = await benchPostgres();
  const db = await openDatabase({ url: pgServer.url, schema: 'bench_engine', poolSize: 4 });
  const runner = await compiledRunner(pgServer.url);
  const maxMoves = envInteger('BENCH_ENGINE_ACTIONS', process.env, 100) ?? 10_000;
  try {
    const synth = await timed(() => Promise.resolve(experimentDefinition()));
    const request = {
      agent: 'random',
      agentSeed: 1,
      maze: { generator: 'perfect', size: 101, seed: 1 },
      config: { max_moves: maxMoves },
    };
    // the engine's process times its own run (wall and its CPU); Postgres's CPU is read here around it
    const engineRun = async (record = false) => {
      const pg0 = pgServer.cpuSeconds();
      const reply = await runner.run(request, record);
      const pg1 = pgServer.cpuSeconds();
      return {
        value: reply,
        seconds: reply.seconds,
        nodeCpu: reply.nodeCpu,
        pgCpu: pg0 === null || pg1 === null ? null : pg1 - pg0,
      };
    };
    // Not measured: the first runs of a process are up to 40% slower (the JIT, a fresh cluster's first WAL
    // segments and caches), and plain pg ran after the engine had warmed all of that. The first run's rows and
    // statements are what the plain runs write: every run of this seed does exactly the same.
    const first = await engineRun(true);
    for (let i = 1; i < WARM_UP; i++) await engineRun();
    const summary = first.value.summary;
    const id = first.value.experimentId;
    const statements = first.value.statements!;

    // The same rows, written by plain pg: one multi-row INSERT per table per batch.
    const turns = (await db.pool.query('SELECT * FROM turns WHERE experiment_id = $1 ORDER BY turn_number', [id])).rows;
    const actions = (
      await db.pool.query(
        `SELECT ${ACTION_COLUMNS.join(', ')} FROM actions WHERE experiment_id = $1 ORDER BY turn_number, call_index`,
        [id],
      )
    ).rows;
    const turnColumns = Object.keys(turns[0]);
    // the agent monitor's rows, written in the same transactions
    const extras = await Promise.all(
      ['agent_state_transitions', 'stuck_signals'].map(async (table) => {
        const rows = (
          await db.pool.query(`SELECT * FROM ${table} WHERE experiment_id = $1 ORDER BY turn_number, seq`, [id])
        ).rows;
        return { table, rows, columns: rows.length > 0 ? Object.keys(rows[0]) : [] };
      }),
    );
    const target = await copyTargetSchema(pgServer.url, 'bench_plain');
    const client = await target.pool.connect();
    const experimentColumns = (
      await client.query<{ name: string }>(
        `SELECT quote_ident(column_name) AS name FROM information_schema.columns
         WHERE table_schema = 'bench_plain' AND table_name = 'experiments' AND is_generated = 'NEVER'
         ORDER BY ordinal_position`,
      )
    ).rows
      .map((r) => r.name)
      .join(', ');
    const setup = async () => {
      await client.query('TRUNCATE experiments, mazes CASCADE');
      await client.query('INSERT INTO mazes SELECT * FROM bench_engine.mazes');
      // named columns: a generated one (021's config_digest) takes no value
      await client.query(
        `INSERT INTO experiments (${experimentColumns}) SELECT ${experimentColumns} FROM bench_engine.experiments
         WHERE id = $1`,
        [id],
      );
    };
    // (a) bulk: 1,000 rows per INSERT in one transaction, the fastest plain pg gets
    const bulkRun = async () => {
      await setup();
      return measured(pgServer.cpuSeconds, async () => {
        await client.query('BEGIN');
        for (let k = 0; k < turns.length; k += 1000) {
          const q = multiRowInsert('turns', turnColumns, turns.slice(k, k + 1000));
          await client.query(q.text, q.values);
        }
        for (let k = 0; k < actions.length; k += 1000) {
          const q = multiRowInsert('actions', ACTION_COLUMNS, actions.slice(k, k + 1000));
          await client.query(q.text, q.values);
        }
        for (const e of extras.filter((x) => x.rows.length > 0)) {
          const q = multiRowInsert(e.table, e.columns, e.rows);
          await client.query(q.text, q.values);
        }
        await client.query('COMMIT');
      });
    };
    // (b) per turn: the turn row and its actions batched, one transaction per turn (the engine's durability unit)
    const byTurn = new Map<number, Record<string, unknown>[]>();
    for (const a of actions) byTurn.set(a.turn_number, [...(byTurn.get(a.turn_number) ?? []), a]);
    const perTurnRun = async () => {
      await setup();
      return measured(pgServer.cpuSeconds, async () => {
        for (const t of turns) {
          await client.query('BEGIN');
          const tq = multiRowInsert('turns', turnColumns, [t]);
          await client.query(tq.text, tq.values);
          const aq = multiRowInsert('actions', ACTION_COLUMNS, byTurn.get(t.turn_number)!);
          await client.query(aq.text, aq.values);
          for (const e of extras) {
            const rows = e.rows.filter((r) => r.turn_number === t.turn_number);
            if (rows.length > 0) {
              const q = multiRowInsert(e.table, e.columns, rows);
              await client.query(q.text, q.values);
            }
          }
          await client.query('COMMIT');
        }
      });
    };
    // (c) the engine's own statement per turn (one round trip, one transaction), as it sent them, and the same
    // without the kept totals' upserts: what those cost each turn
    const replayRun = async (kind: 'full' | 'bare') => {
      await setup();
      await client.query("UPDATE experiments SET status = 'running', turns_completed = 0 WHERE id = $1", [id]);
      return measured(pgServer.cpuSeconds, async () => {
        for (const q of statements) await client.query(kind === 'full' ? q : withoutTotals(q));
      });
    };
    await perTurnRun(); // not measured either: plain pg's first run
    // Interleaved, so that whatever the machine does meanwhile falls on every kind alike; medians of REPEATS.
    type Measured = Awaited<ReturnType<typeof bulkRun>>;
    const runs = { engine: [] as Array<Awaited<ReturnType<typeof engineRun>>>, bulk: [] as Measured[] };
    const plain = { perTurn: [] as Measured[], full: [] as Measured[], bare: [] as Measured[] };
    for (let i = 0; i < REPEATS; i++) {
      const e = await engineRun();
      if (e.value.summary?.actions !== summary.actions || e.value.summary.turns !== summary.turns)
        throw new Error(`run ${i + 1} did ${e.value.summary?.actions} actions, the first ${summary.actions}`);
      runs.engine.push(e);
      plain.perTurn.push(await perTurnRun());
      runs.bulk.push(await bulkRun());
      plain.full.push(await replayRun('full'));
      plain.bare.push(await replayRun('bare'));
    }
    const run = median(runs.engine);
    const bulk = median(runs.bulk);
    const perTurn = median(plain.perTurn);
    const replay = { full: median(plain.full), bare: median(plain.bare) };
    const engineRate = summary.actions / run.seconds;
    client.release();
    await target.close();

    const bulkRate = summary.actions / bulk.seconds;
    const perTurnRate = summary.actions / perTurn.seconds;
    const n = summary.turns;
    // per turn: wall ms, and ms of CPU of Node and of Postgres (the less noisy figures on a shared machine)
    const perTurnOf = (m: { seconds: number; nodeCpu: number; pgCpu: number | null }) =>
      `${fmt((1000 * m.seconds) / n, 2)} ms/turn (CPU: Node ${fmt((1000 * m.nodeCpu) / n, 2)} ms, Postgres ` +
      `${m.pgCpu === null ? 'n/a' : `${fmt((1000 * m.pgCpu) / n, 2)} ms`})`;
    const ratioPerTurn = engineRate / perTurnRate;
    console.log(
      `engine: ${fmt(maxMoves)}-action experiment through the local state machine as the CLI runs it (compiled; ` +
        `random agent, perfect 101x101, embedded Postgres), medians of ${REPEATS} interleaved runs after ` +
        `${WARM_UP} unmeasured; load average ` +
        `${loadavg()
          .map((l) => fmt(l, 2))
          .join(' ')}`,
    );
    console.log(`  definition (synthesized once, or read from the temp-dir cache)  ${fmt(synth.seconds, 2)} s`);
    console.log(
      `  experiment: ${fmt(summary.actions)} actions in ${fmt(n)} turns, ` +
        `${fmt(run.seconds, 2)} s  -> ${fmt(engineRate)} actions/s  (target: under 15 s); ${perTurnOf(run)}`,
    );
    console.log(
      `  plain pg, same rows, 1,000-row INSERTs, one transaction   ${fmt(bulk.seconds, 2)} s -> ` +
        `${fmt(bulkRate)} actions/s`,
    );
    console.log(
      `  plain pg, same rows, one transaction per turn            ${fmt(perTurn.seconds, 2)} s -> ` +
        `${fmt(perTurnRate)} actions/s; ${perTurnOf(perTurn)}`,
    );
    const msPerTurn = (ms: Array<{ seconds: number }>) => ms.map((m) => fmt((1000 * m.seconds) / n, 2)).join(' ');
    console.log(
      `  each run, ms a turn: engine ${msPerTurn(runs.engine)}; plain per turn ${msPerTurn(plain.perTurn)}; ` +
        `paired ratios ${runs.engine.map((e, i) => fmt(plain.perTurn[i].seconds / e.seconds, 2)).join(' ')}`,
    );
    console.log(`  ratio engine / plain bulk      ${fmt(engineRate / bulkRate, 2)}  (target >= 0.30)`);
    recordFigure({
      what: `local runner / plain pg one transaction a turn, ${fmt(maxMoves)} actions`,
      measured: ratioPerTurn,
      target: PER_TURN_TARGET,
      unit: '',
      higherIsBetter: true,
    });
    console.log(
      `  ratio engine / plain per turn  ${fmt(ratioPerTurn, 2)}  (target >= ${PER_TURN_TARGET}: ` +
        `${fmt(ratioPerTurn / PER_TURN_TARGET, 2)}x the target)`,
    );
    console.log(
      `  the engine's turn statements alone, one round trip a turn:   ${perTurnOf(replay.full)}\n` +
        `  the same without the kept totals' upserts (migration 017):   ${perTurnOf(replay.bare)}\n` +
        `  -> the totals cost ${fmt((1000 * (replay.full.seconds - replay.bare.seconds)) / n, 2)} ms/turn ` +
        `(Postgres CPU ${
          replay.full.pgCpu === null || replay.bare.pgCpu === null
            ? 'n/a'
            : `${fmt((1000 * (replay.full.pgCpu - replay.bare.pgCpu)) / n, 2)} ms`
        })`,
    );
    console.log(
      `  rows: ${fmt(turns.length)} turns, ${fmt(actions.length)} actions, ` +
        `${extras.map((e) => `${fmt(e.rows.length)} ${e.table}`).join(', ')}; local engine events ` +
        `${fmt(run.value.events)}`,
    );
    console.log(
      `  the engine's process: heap after its last run ${fmt(run.value.heapMb)} MB, ` +
        `peak RSS ${fmt(run.value.peakRssMb)} MB`,
    );
    return {
      seconds: run.seconds,
      engineRate,
      bulkRate,
      perTurnRate,
      ratioBulk: engineRate / bulkRate,
      ratioPerTurn,
    };
  } finally {
    await runner.close();
    await db.close();
    await pgServer.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await engineBench();
