// A migrated schema of its own for one test file, dropped afterwards, reached
// through either transport: pg, or the RDS Data API (our DataApiDatabase and
// the real SDK client, through RdsDataSim in front of the same schema).
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import pg from 'pg';
import { openDatabase, type Database } from '../../core/store/database.ts';
import { overDataApi, type RdsDataSim } from '../../simulators/rds-data-sim.ts';

export type Transport = 'pg' | 'data-api';
/** Store suites run once per transport. */
export const TRANSPORTS: Transport[] = ['pg', 'data-api'];

export interface TestDatabase extends Database {
  url: string;
  /** The Data API server, when the transport is the Data API. */
  sim?: RdsDataSim;
  drop(): Promise<void>;
}

export async function testDatabase(
  opts:
    | number
    | {
        poolSize?: number;
        transport?: Transport;
        dataApiBudgetMs?: number;
        resumeAfterMs?: number;
        transactionIdleMs?: number;
      } = {},
): Promise<TestDatabase> {
  const o = typeof opts === 'number' ? { poolSize: opts } : opts;
  const { poolSize = 5, transport = 'pg', dataApiBudgetMs, resumeAfterMs, transactionIdleMs } = o;
  const url = inject('databaseUrl');
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const db = await openDatabase({ url, schema, poolSize, field: 'TEST_DATABASE_URL' });
  const over =
    transport === 'data-api'
      ? await overDataApi(db, { url, retryBudgetMs: dataApiBudgetMs, resumeAfterMs, transactionIdleMs })
      : undefined;
  const sim = over?.sim;
  return {
    ...(over ?? db),
    url,
    sim,
    async drop() {
      await sim?.close();
      if (!db.pool.ended) await db.close(); // a test may have closed it already

      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

/**
 * What must hold for every experiment however it was run (at once, killed and
 * resumed, retried): finalized, every step 1..n and turn 1..n logged exactly
 * once, counters equal to the rows. Returns each breach in words; none is [].
 */
export async function ledgerProblems(db: Database, ids: string[]): Promise<string[]> {
  const { rows } = await db.pool.query(
    `
    SELECT e.id, e.status, e.actions_taken, e.turns_completed, a.executed, a.distinct_steps, a.last_step,
           t.turns, t.last_turn
    FROM experiments e
    CROSS JOIN LATERAL (SELECT count(*)::int AS executed, count(DISTINCT step_number)::int AS distinct_steps,
                               coalesce(max(step_number), 0) AS last_step
                        FROM actions WHERE experiment_id = e.id AND executed) a
    CROSS JOIN LATERAL (SELECT count(*)::int AS turns, coalesce(max(turn_number), 0) AS last_turn
                        FROM turns WHERE experiment_id = e.id) t
    WHERE e.id = ANY ($1)`,
    [ids],
  );
  const problems = ids.length === rows.length ? [] : [`${ids.length - rows.length} experiments missing`];
  for (const r of rows) {
    if (r.status === 'running') problems.push(`${r.id} not finalized`);
    if (![r.executed, r.distinct_steps, r.last_step].every((v) => v === r.actions_taken))
      problems.push(
        `${r.id}: ${r.actions_taken} actions counted, ${r.executed} logged, ${r.distinct_steps} ` +
          `distinct steps, last ${r.last_step}`,
      );
    if (![r.turns, r.last_turn].every((v) => v === r.turns_completed))
      problems.push(`${r.id}: ${r.turns_completed} turns counted, ${r.turns} logged, last ${r.last_turn}`);
  }
  return problems;
}

/** Row counts of every table the engine writes, to prove a step wrote nothing (or exactly what it should). */
export async function tableCounts(db: Database): Promise<Record<string, number>> {
  const { rows } = await db.pool.query(`SELECT
    (SELECT count(*) FROM mazes) AS mazes, (SELECT count(*) FROM experiments) AS experiments,
    (SELECT count(*) FROM turns) AS turns, (SELECT count(*) FROM actions) AS actions,
    (SELECT count(*) FROM llm_calls) AS llm_calls, (SELECT count(*) FROM agent_state_transitions) AS transitions,
    (SELECT count(*) FROM stuck_signals) AS stuck_signals`);
  return rows[0];
}

/** Every row of the engine's tables, as text, for before/after equality. */
export async function tableDump(db: Database): Promise<string> {
  const out: string[] = [];
  for (const [table, order] of [
    ['mazes', 'id'],
    ['experiments', 'id'],
    ['turns', 'experiment_id, turn_number'],
    ['actions', 'experiment_id, turn_number, call_index'],
    ['llm_calls', 'experiment_id, turn_number, call_index'],
    ['agent_state_transitions', 'experiment_id, turn_number, seq'],
    ['stuck_signals', 'experiment_id, turn_number, seq'],
  ]) {
    const { rows } = await db.pool.query(`SELECT * FROM ${table} ORDER BY ${order}`);
    const hexBuffers = (_k: string, v: any) => (v && v.type === 'Buffer' ? Buffer.from(v.data).toString('hex') : v);
    out.push(`${table}:${JSON.stringify(rows, hexBuffers)}`);
  }
  return out.join('\n');
}

/** An experiment's actions in order, as the tests that compare two runs' logs read them (no ids, no times). */
export async function actionLog(db: Database, experimentId: string): Promise<Record<string, unknown>[]> {
  const { rows } = await db.pool.query<Record<string, unknown>>(
    'SELECT turn_number, call_index, step_number, tool, outcome, from_x, from_y, to_x, to_y, new_tiles_seen ' +
      'FROM actions WHERE experiment_id = $1 ORDER BY turn_number, call_index',
    [experimentId],
  );
  return rows;
}
