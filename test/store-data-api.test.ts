// The store over the RDS Data API, where its rules differ from a socket: a
// whole experiment through the state machine, an action log over the 1 MiB
// response limit read back in pages, and a paused Aurora waited out within
// the function's budget (or given up on, by the name the state machine
// retries).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { runTurn } from '../core/engine/turn.ts';
import { startExperiment } from '../core/engine/experiment.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { baselineAgents } from '../core/providers/baselines.ts';
import { openDatabase } from '../core/store/database.ts';
import { ledgerProblems, testDatabase, type TestDatabase } from './support/db.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase({ transport: 'data-api', resumeAfterMs: 1_500 });
});
afterAll(async () => {
  await db.drop();
});

const MAZE = { kind: 'generated' as const, spec: { generator: 'medium', width: 21, height: 21, seed: 5 } };

describe('the store over the Data API', () => {
  it('runs a 10,000-action experiment; a cold read of its log (over 1 MiB) comes back whole, in pages', async () => {
    const result = await runLocalExperiment(
      {
        agent: 'random',
        agentSeed: 3,
        maze: { generator: 'perfect', size: 41, seed: 2 },
        config: { max_moves: 10_000, success_rule: 'reached' },
      },
      { db },
    );
    const id = result.experimentId!;
    expect(await ledgerProblems(db, [id])).toEqual([]);
    const { rows } = await db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM actions WHERE experiment_id = $1 AND executed',
      [id],
    );
    expect(rows[0].n).toBe(10_000);
    // one response could not hold the log
    await expect(
      db.query('SELECT step_number, vision, outcome FROM actions WHERE experiment_id = $1', [id]),
    ).rejects.toMatchObject({ name: 'ResultTooLargeError' });
    const before = db.sim!.requests.length;
    const overDataApi = await new PgStore(db).loadTurnContext(id);
    const pages = db.sim!.requests.slice(before).filter((r) => /FROM actions/.test(r.body.sql ?? '')).length;
    expect(pages).toBeGreaterThan(1);
    const overPgDb = await openDatabase({ url: db.url, schema: db.schema, migrate: false, poolSize: 1 });
    const overPg = await new PgStore(overPgDb).loadTurnContext(id).finally(() => overPgDb.close());
    expect(overDataApi.state).toEqual(overPg.state);
    expect(overDataApi.state.actionsTaken).toBe(rows[0].n);
  }, 180_000);

  it('a paused cluster is resumed and waited out: the turn commits once', async () => {
    const store = new PgStore(db);
    const { experimentId } = await startExperiment(
      { agent: 'random', provider: 'baseline', agentSeed: 1, maze: MAZE, config: { max_moves: 50 } },
      store,
    );
    await db.sim!.pause();
    const turn = await runTurn(experimentId, 1, { store: new PgStore(db), agents: baselineAgents });
    expect(turn.replayed).toBe(false);
    expect(db.sim!.isPaused).toBe(false);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM turns WHERE experiment_id = $1', [
      experimentId,
    ]);
    expect(rows[0].n).toBe(1);
  });

  it('a resume longer than the budget ends in DatabaseUnavailableError, which the state machine retries', async () => {
    const short = await testDatabase({ transport: 'data-api', resumeAfterMs: 60_000, dataApiBudgetMs: 1_000 });
    try {
      await short.sim!.pause();
      await expect(short.query('SELECT 1')).rejects.toMatchObject({ name: 'DatabaseUnavailableError' });
    } finally {
      await short.drop();
    }
  });
});
