// Crash safety and database faults: a turn interrupted at every point, then
// run again as a Step Functions retry would, leaves exactly the actions of an
// uninterrupted run; a connection killed mid-turn is retried; a database that
// is down gives a clear error, not a hang.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTurn } from '../core/engine/turn.ts';
import { startExperiment } from '../core/engine/experiment.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { commitTurnQuery } from '../core/store/turn-sql.ts';
import { baselineAgents } from '../core/providers/baselines.ts';
import { openDatabase } from '../core/store/database.ts';
import type { AgentFactory } from '../core/engine/agent.ts';
import type { EngineStore, TurnWrite } from '../core/engine/store.ts';
import { actionLog, ledgerProblems, testDatabase, TRANSPORTS, type TestDatabase } from './support/db.ts';
import { cli } from './support/cli.ts';
import { resumeInput, runLocalExperiment } from '../state-machine/local-experiment.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});

const MAZE = { kind: 'generated' as const, spec: { generator: 'medium', width: 21, height: 21, seed: 5 } };
const CONFIG = { max_moves: 120, max_actions_per_turn: 6 };

class Crash extends Error {
  override readonly name = 'Crash';
}

async function newExperiment(id: string) {
  await startExperiment(
    { experimentId: id, agent: 'random', provider: 'baseline', agentSeed: 42, maze: MAZE, config: CONFIG },
    new PgStore(db),
  );
  return id;
}

/** Turns until the game ends, each in a new store (a cold Lambda) unless one is given. */
async function playOut(id: string, agents: AgentFactory = baselineAgents, from = 1, store?: PgStore): Promise<void> {
  for (let turn = from; ; turn++) {
    const t = await runTurn(id, turn, { store: store ?? new PgStore(db), agents });
    if (t.goalFound || t.actionsTaken >= CONFIG.max_moves) return;
  }
}

const log = (id: string) => actionLog(db, id);
const counters = async (id: string) =>
  (
    await db.pool.query(
      `SELECT e.actions_taken, e.turns_completed, e.tiles_seen,
          (SELECT count(*)::int FROM turns t WHERE t.experiment_id = e.id) AS turns,
          (SELECT count(*)::int FROM actions a WHERE a.experiment_id = e.id AND a.executed) AS executed
   FROM experiments e WHERE id = $1`,
      [id],
    )
  ).rows[0];

/** A store that runs `before`/`instead` around commitTurn, to crash at a chosen point of turn `at`. */
function crashingStore(
  at: number,
  point: 'after_reply' | 'mid_transaction' | 'after_commit',
  store = new PgStore(db),
): EngineStore {
  return {
    loadTurnContext: (id, opts) => store.loadTurnContext(id, opts),
    findTurn: (id, n) => store.findTurn(id, n),
    async commitTurn(turn: TurnWrite) {
      if (turn.turnNumber !== at) return store.commitTurn(turn);
      if (point === 'after_reply') throw new Crash('process died after the reply, before the commit');
      if (point === 'mid_transaction' && db.transport === 'data-api') {
        // the turn's statement runs in a Data API transaction nobody finishes: the function died; the Data API
        // rolls it back when it expires (three minutes on AWS, the sim's transactionIdleMs here), and until then
        // the retried turn waits on its row lock
        const { name, text, values } = commitTurnQuery(turn);
        let ran!: () => void;
        const statementRan = new Promise<void>((r) => (ran = r));
        void db.transaction(async (tx) => {
          await tx.query(text, values, { name });
          ran();
          await new Promise(() => undefined); // never returns: no commit, no rollback
        });
        await statementRan;
        throw new Crash('process died mid-transaction');
      }
      if (point === 'mid_transaction') {
        // the turn's statement runs inside a transaction that never commits: the process dies, the server rolls back
        const client = await db.pool.connect();
        await client.query('BEGIN');
        await client.query(commitTurnQuery(turn));
        // destroys the connection: the transaction is rolled back
        client.release(new Error('process died mid-transaction'));
        throw new Crash('process died mid-transaction');
      }
      await store.commitTurn(turn);
      throw new Crash('process died after the commit, before the handler returned');
    },
  };
}

describe.each(TRANSPORTS)('a turn interrupted at any point, then run again, over %s', (transport) => {
  let reference: Array<Record<string, unknown>>;
  let pgDb: TestDatabase;
  beforeAll(async () => {
    if (transport === 'data-api') {
      pgDb = db;
      db = await testDatabase({ transport, transactionIdleMs: 2_000 });
    }
    const id = await newExperiment('crash-reference');
    await playOut(id);
    reference = await log(id);
    expect(reference.length).toBeGreaterThan(20);
  });
  afterAll(async () => {
    if (transport === 'pg') return;
    await db.drop();
    db = pgDb;
  });

  // a new process (a cold Lambda) reads the run; the same one (a warm container retried) has the state the failed
  // turn took from its memory and changed in place: it must read the run again, not go on from that
  it.each(
    (['before_reply', 'mid_turn', 'after_reply', 'mid_transaction', 'after_commit'] as const).flatMap((point) =>
      (['a new process', 'the same process'] as const).map((by) => [point, by] as const),
    ),
  )('crash %s, rerun by %s: the rerun yields exactly the uninterrupted actions', async (point, by) => {
    const id = await newExperiment(`crash-${point.replace('_', '-')}-${by === 'a new process' ? 'cold' : 'warm'}`);
    const warm = by === 'the same process' ? new PgStore(db) : undefined;
    await runTurn(id, 1, { store: warm ?? new PgStore(db), agents: baselineAgents });
    await runTurn(id, 2, { store: warm ?? new PgStore(db), agents: baselineAgents });
    const crashAt = 3;
    const failingAgents: AgentFactory = (identity) => {
      const agent = baselineAgents(identity);
      return {
        ...agent,
        act: () => Promise.reject(new Crash('process died before the reply')),
      };
    };
    // mid turn: one move done (the state changed), then the next reply fails
    const midTurnAgents: AgentFactory = (identity) => {
      const agent = baselineAgents(identity);
      let replies = 0;
      return {
        ...agent,
        act: async (obs) =>
          replies++ === 0
            ? { calls: (await agent.act(obs)).calls.slice(0, 1) }
            : Promise.reject(new Crash('process died after a move')),
      };
    };
    const attempt =
      point === 'before_reply' || point === 'mid_turn'
        ? runTurn(id, crashAt, {
            store: warm ?? new PgStore(db),
            agents: point === 'mid_turn' ? midTurnAgents : failingAgents,
          })
        : runTurn(id, crashAt, { store: crashingStore(crashAt, point, warm), agents: baselineAgents });
    await expect(attempt).rejects.toThrow(Crash);
    const afterCrash = await counters(id);
    expect(afterCrash.turns).toBe(point === 'after_commit' ? 3 : 2); // committed whole or not at all
    expect(afterCrash.executed).toBe(afterCrash.actions_taken);
    // the retry (a new process) and the rest of the run
    const retried = await runTurn(id, crashAt, { store: warm ?? new PgStore(db), agents: baselineAgents });
    expect(retried.replayed).toBe(point === 'after_commit');
    await playOut(id, baselineAgents, crashAt + 1, warm);
    expect(await log(id)).toEqual(reference);
    const c = await counters(id);
    expect([c.executed, c.turns]).toEqual([c.actions_taken, c.turns_completed]);
  });
});

describe('database faults', () => {
  it("a connection terminated during the turn's commit is retried: the turn commits once", async () => {
    const id = await newExperiment('killed-connection');
    // hold the experiment row, so the turn's statement waits on it where we can see it, then kill that backend
    const locker = await db.pool.connect();
    await locker.query('BEGIN');
    await locker.query('SELECT 1 FROM experiments WHERE id = $1 FOR UPDATE', [id]);
    const turn = runTurn(id, 1, { store: new PgStore(db), agents: baselineAgents });
    let killed = 0;
    // a deadline, not a count of polls: on a loaded machine the turn may take many seconds to reach the lock
    for (const deadline = Date.now() + 90_000; killed === 0 && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 25));
      // the locker is inside a transaction, where pg_stat_activity is a snapshot taken at its first read: without
      // clearing it, a turn that reached the lock after the first poll was never seen (on a loaded machine)
      await locker.query('SELECT pg_stat_clear_snapshot()');
      const { rows } = await locker.query(
        `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO ` +
          `turns%' AND pid <> pg_backend_pid()`,
      );
      for (const r of rows) {
        await locker.query('SELECT pg_terminate_backend($1)', [r.pid]);
        killed++;
      }
    }
    expect(killed).toBe(1);
    await locker.query('ROLLBACK');
    locker.release();
    const t = await turn;
    expect(t.replayed).toBe(false);
    const c = await counters(id);
    expect([c.turns, c.executed]).toEqual([1, c.actions_taken]);
  });

  it('the pool has limits and the server cancels a statement that runs too long', async () => {
    const limited = await openDatabase({
      url: db.url,
      schema: db.schema,
      poolSize: 3,
      statementTimeoutMs: 200,
      migrate: false,
    });
    try {
      expect(limited.pool.options.max).toBe(3);
      expect((await limited.pool.query('SHOW statement_timeout')).rows[0].statement_timeout).toBe('200ms');
      await expect(limited.pool.query('SELECT pg_sleep(2)')).rejects.toThrow(
        /canceling statement due to statement timeout/,
      );
    } finally {
      await limited.close();
    }
  });

  it('a database that is down at start: a clear error within seconds, naming the setting', async () => {
    const probe = await import('node:net').then(
      (net) =>
        new Promise<number>((resolve) => {
          const s = net.createServer().listen(0, '127.0.0.1', () => {
            const port = (s.address() as { port: number }).port;
            s.close(() => resolve(port));
          });
        }),
    );
    const started = Date.now();
    await expect(openDatabase({ url: `postgres://ariadne:secret-pw@127.0.0.1:${probe}/ariadne` })).rejects.toThrow(
      new RegExp(
        `cannot connect to DATABASE_URL postgres://ariadne:\\*+@127\\.0\\.0\\.1:${probe}/ariadne: ` +
          '.*ECONNREFUSED.*unset DATABASE_URL to use the embedded database',
      ),
    );
    expect(Date.now() - started).toBeLessThan(12_000);
    const r = await cli(() => db).ariadne(['run', '--agent', 'random'], {
      DATABASE_URL: `postgres://ariadne:secret-pw@127.0.0.1:${probe}/ariadne`,
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/cannot connect to DATABASE_URL/);
    expect(r.stderr).not.toContain('secret-pw');
  });
});

describe('load', () => {
  it(
    '8 experiments at once through one pool: every action logged once, every experiment finalized, no ' + 'deadlock',
    async () => {
      const n = 8;
      const results = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          runLocalExperiment(
            {
              agent: 'random',
              agentSeed: i,
              experimentId: `load-${i}`,
              maze: { generator: 'perfect', size: 31, seed: i + 1 },
              config: { max_moves: 400, max_actions_per_turn: 5 },
            },
            { db },
          ),
        ),
      );
      for (const r of results) expect(['completed', 'timeout']).toContain(r.summary!.status);
      // steps 1..n exactly once, turns 1..n exactly once, counters equal to rows
      expect(
        await ledgerProblems(
          db,
          Array.from({ length: n }, (_, i) => `load-${i}`),
        ),
      ).toEqual([]);
    },
  );
});

describe('ariadne resume', () => {
  it('continues an experiment a dead process left running, from its next turn, to the same end', async () => {
    const id = await newExperiment('resume-me');
    await runTurn(id, 1, { store: new PgStore(db), agents: baselineAgents });
    await runTurn(id, 2, { store: new PgStore(db), agents: baselineAgents });
    const r = await cli(() => db).ariadne(['resume', id, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ experiment_id: id, status: 'timeout', actions: CONFIG.max_moves });
    const reference = await log('crash-reference');
    expect(await log(id)).toEqual(reference);
    const again = await cli(() => db).ariadne(['resume', id]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(
      'experiment resume-me is timeout; only running experiments take turns; ' +
        'only an interrupted (running) experiment can be resumed',
    );
  });

  it('keeps the time a run had left: a resume three hours after the kill is not a timeout', async () => {
    const id = 'resume-after-outage';
    await startExperiment(
      {
        experimentId: id,
        agent: 'random',
        provider: 'baseline',
        agentSeed: 42,
        maze: MAZE,
        config: { ...CONFIG, max_duration_minutes: 60 },
      },
      new PgStore(db),
    );
    await runTurn(id, 1, { store: new PgStore(db), agents: baselineAgents });
    await runTurn(id, 2, { store: new PgStore(db), agents: baselineAgents });
    // as if it started 3 h 50 min ago, ran 50 minutes, and its process died three hours ago
    const now = new Date();
    const ago = (minutes: number) => new Date(now.getTime() - minutes * 60_000).toISOString();
    await db.pool.query('UPDATE experiments SET started_at = $2 WHERE id = $1', [id, ago(230)]);
    await db.pool.query('UPDATE turns SET started_at = $2, ended_at = $3 WHERE experiment_id = $1', [
      id,
      ago(181),
      ago(180),
    ]);
    const input = await resumeInput(db, id, now);
    // the clock restarts with the 50 minutes it had used: 10 of its 60 are left
    expect(now.getTime() - Date.parse(input.resume.startedAt)).toBeCloseTo(50 * 60_000, -3);
    const stored = await db.pool.query('SELECT suspended_seconds FROM experiments WHERE id = $1', [id]);
    expect(stored.rows[0].suspended_seconds).toBeCloseTo(180 * 60, 0);
    const { summary } = await runLocalExperiment(input as never, { db });
    // without the suspended time it would stop as max_duration after one turn (3 h 50 min > 60 min)
    expect(summary).toMatchObject({ status: 'timeout', stop_reason: 'max_moves', actions: CONFIG.max_moves });
    expect(await log(id)).toEqual(await log('crash-reference'));
  });

  it('a resumed run that had used its time still ends as max_duration', async () => {
    const id = 'resume-out-of-time';
    await startExperiment(
      {
        experimentId: id,
        agent: 'random',
        provider: 'baseline',
        agentSeed: 42,
        maze: MAZE,
        config: { ...CONFIG, max_duration_minutes: 60 },
      },
      new PgStore(db),
    );
    await runTurn(id, 1, { store: new PgStore(db), agents: baselineAgents });
    const now = new Date();
    const ago = (minutes: number) => new Date(now.getTime() - minutes * 60_000).toISOString();
    // it ran 61 minutes before it was killed three hours ago
    await db.pool.query('UPDATE experiments SET started_at = $2 WHERE id = $1', [id, ago(241)]);
    await db.pool.query('UPDATE turns SET ended_at = $2 WHERE experiment_id = $1', [id, ago(180)]);
    const { summary } = await runLocalExperiment((await resumeInput(db, id, now)) as never, { db });
    expect(summary).toMatchObject({ status: 'timeout', stop_reason: 'max_duration' });
  });

  it('the local runner resumes the same way', async () => {
    const { experimentId } = await runLocalExperiment(
      {
        agent: 'random',
        agentSeed: 42,
        experimentId: 'resume-local',
        maze: { generator: 'medium', size: 21, seed: 5 },
        config: CONFIG,
      },
      { db },
    );
    expect(await log(experimentId!)).toEqual(await log('crash-reference'));
  });
});
