// A 10,000-action experiment (random agent, 101x101 perfect maze, max_moves
// 10,000) through the local state machine on the embedded Postgres, against
// writing the very same rows with plain batched pg inserts.
// Targets: ratio >= 0.3 and the whole experiment under 15 s on 2 cores.
import { fileURLToPath } from 'node:url';
import { openDatabase, type Database } from '../lambdas/store/database.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { experimentDefinition } from '../state-machine/definition.ts';
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

const REPEATS = 3;

function median<T extends { seconds: number }>(runs: T[]): T {
  return [...runs].sort((a, b) => a.seconds - b.seconds)[Math.floor(runs.length / 2)];
}

async function copyTargetSchema(url: string, name: string): Promise<Database> {
  return openDatabase({ url, schema: name, poolSize: 1 });
}

export async function engineBench(): Promise<Record<string, number>> {
  const pgServer = await benchPostgres();
  const db = await openDatabase({ url: pgServer.url, schema: 'bench_engine', poolSize: 4 });
  try {
    const synth = await timed(() => Promise.resolve(experimentDefinition()));
    // Each figure is the median of REPEATS runs: single runs on a shared 2-core machine vary by ~25%.
    const runs = [];
    for (let i = 0; i < REPEATS; i++) {
      runs.push(
        await timed(() =>
          runLocalExperiment(
            {
              agent: 'random',
              agentSeed: 1,
              maze: { generator: 'perfect', size: 101, seed: 1 },
              config: { max_moves: 10_000 },
            },
            { db },
          ),
        ),
      );
    }
    const run = median(runs);
    const heapAfter = process.memoryUsage().heapUsed / 2 ** 20;
    const summary = run.value.summary!;
    const id = run.value.experimentId!;
    const engineRate = summary.actions / run.seconds;

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
    const setup = async () => {
      await client.query('TRUNCATE experiments, mazes CASCADE');
      await client.query('INSERT INTO mazes SELECT * FROM bench_engine.mazes');
      await client.query('INSERT INTO experiments SELECT * FROM bench_engine.experiments WHERE id = $1', [id]);
    };
    // (a) bulk: 1,000 rows per INSERT in one transaction, the fastest plain pg gets
    const bulkRuns = [];
    for (let i = 0; i < REPEATS; i++) {
      await setup();
      bulkRuns.push(
        await timed(async () => {
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
        }),
      );
    }
    const bulk = median(bulkRuns);
    // (b) per turn: the turn row and its actions batched, one transaction per turn (the engine's durability unit)
    const byTurn = new Map<number, Record<string, unknown>[]>();
    for (const a of actions) byTurn.set(a.turn_number, [...(byTurn.get(a.turn_number) ?? []), a]);
    const perTurnRuns = [];
    for (let i = 0; i < REPEATS; i++) {
      await setup();
      perTurnRuns.push(
        await timed(async () => {
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
        }),
      );
    }
    const perTurn = median(perTurnRuns);
    client.release();
    await target.close();

    const bulkRate = summary.actions / bulk.seconds;
    const perTurnRate = summary.actions / perTurn.seconds;
    const peakRss = process.resourceUsage().maxRSS / 1024; // KiB -> MiB
    console.log(
      `engine: 10,000-action experiment through the local state machine (random agent, perfect 101x101, ` +
        `embedded Postgres), medians of ${REPEATS} runs`,
    );
    console.log(`  definition (synthesized once, or read from the temp-dir cache)  ${fmt(synth.seconds, 2)} s`);
    console.log(
      `  experiment: ${fmt(summary.actions)} actions in ${fmt(summary.turns)} turns, ` +
        `${fmt(run.seconds, 2)} s  -> ${fmt(engineRate)} actions/s  (target: under 15 s)`,
    );
    console.log(
      `  plain pg, same rows, 1,000-row INSERTs, one transaction   ${fmt(bulk.seconds, 2)} s -> ` +
        `${fmt(bulkRate)} actions/s`,
    );
    console.log(
      `  plain pg, same rows, one transaction per turn            ${fmt(perTurn.seconds, 2)} s -> ` +
        `${fmt(perTurnRate)} actions/s`,
    );
    console.log(`  ratio engine / plain bulk      ${fmt(engineRate / bulkRate, 2)}  (target >= 0.30)`);
    console.log(`  ratio engine / plain per turn  ${fmt(engineRate / perTurnRate, 2)}`);
    console.log(
      `  rows: ${fmt(turns.length)} turns, ${fmt(actions.length)} actions, ` +
        `${extras.map((e) => `${fmt(e.rows.length)} ${e.table}`).join(', ')}; local engine events ` +
        `${fmt(run.value.events)}`,
    );
    console.log(
      `  heap after the run ${fmt(heapAfter)} MB; peak RSS of the process ${fmt(peakRss)} MB (CDK synthesis included)`,
    );
    return {
      seconds: run.seconds,
      engineRate,
      bulkRate,
      perTurnRate,
      ratioBulk: engineRate / bulkRate,
      ratioPerTurn: engineRate / perTurnRate,
    };
  } finally {
    await db.close();
    await pgServer.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await engineBench();
