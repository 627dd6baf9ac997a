// Summaries kept, not recomputed (migration 017): experiment_summary now reads experiment_totals,
// which each turn's statement advances and finalize recomputes. Here the kept row equals the old view's
// (migration 004's, read as the reference) for every experiment, after real runs of every agent kind, while they
// run (turn by turn, before finalize could mend anything) and when they end, over pg and the Data API; a turn rolled
// back or committed and then retried counts once; a run resumed by another process goes on from the kept row.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTurn } from '../core/engine/turn.ts';
import { startExperiment } from '../core/engine/experiment.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { commitTurnQuery } from '../core/store/turn-sql.ts';
import { baselineAgents } from '../core/providers/baselines.ts';
import { STATES } from '../core/machine/states.ts';
import type { EngineStore, TurnWrite } from '../core/engine/store.ts';
import { resumeInput, runLocalExperiment } from '../state-machine/local-experiment.ts';
import { testDatabase, TRANSPORTS, type TestDatabase } from './support/db.ts';
import { bedrockRunner, FAST_RETRY, providerSims } from './support/provider-sims.ts';

const sims = providerSims();
const NO_WAIT = { [STATES.InvokeOllamaAgent]: 0, [STATES.InvokeBedrockAgent]: 0 };
const MAZE = { generator: 'medium', size: 11, seed: 3 };
const GENERATED = { kind: 'generated' as const, spec: { generator: 'medium', width: 11, height: 11, seed: 3 } };
// a small maze and many moves: the random agent re-enters cells 10 times and more (loop cells) and raises signals
const LOOPING = { max_moves: 300, max_actions_per_turn: 7, stuck_policy: 'observe' as const };

// experiment_summary as migration 004 last defined it (over 001's), aggregating every action and turn at read time:
// read from the migration itself, so the reference is the shipped view, not a copy of it
const HEAD = 'CREATE OR REPLACE VIEW experiment_summary AS';
const MIGRATION_004 = readFileSync(new URL('../migrations/004_agent_state.sql', import.meta.url), 'utf8');
const REFERENCE = MIGRATION_004.slice(
  MIGRATION_004.indexOf(HEAD) + HEAD.length,
  MIGRATION_004.indexOf(';', MIGRATION_004.indexOf(HEAD)),
);

// the kept columns the view does not show, by their definitions, and what the lists read beside them
const REFERENCE_EXTRA = `
SELECT e.id AS experiment_id,
  (SELECT count(*) FROM actions a WHERE a.experiment_id = e.id) AS tool_calls,
  (SELECT count(*) FILTER (WHERE parsed_from_text) FROM actions a WHERE a.experiment_id = e.id) AS text_tool_calls,
  (SELECT coalesce(bool_and(cost_known(t.cost_usd, t.llm_calls)), true) FROM turns t WHERE t.experiment_id = e.id)
    AS cost_known
FROM experiments e`;

type Row = Record<string, unknown>;

/** Each row of a query by experiment, without wall_seconds (now() for a running run: it moves between reads). */
async function rowsOf(db: TestDatabase, sql: string): Promise<Row[]> {
  const { rows } = await db.pool.query<Row>(`SELECT * FROM (${sql}) q ORDER BY experiment_id`);
  return rows.map(({ wall_seconds: _, ...r }) => r);
}
const kept = (db: TestDatabase) =>
  Promise.all([
    rowsOf(db, 'SELECT * FROM experiment_summary'),
    rowsOf(
      db,
      `SELECT e.id AS experiment_id, coalesce(k.tool_calls, 0) AS tool_calls,
         coalesce(k.text_tool_calls, 0) AS text_tool_calls, coalesce(k.cost_known, true) AS cost_known
       FROM experiments e LEFT JOIN experiment_totals k ON k.experiment_id = e.id`,
    ),
  ]);
// with the columns migration 034 added after the aggregates (the player and the suite maze: the experiment's own)
const REFERENCE_NOW = `SELECT r.*, e.player, e.suite, e.suite_maze
  FROM (${REFERENCE}) r JOIN experiments e ON e.id = r.experiment_id`;
const recomputed = (db: TestDatabase) => Promise.all([rowsOf(db, REFERENCE_NOW), rowsOf(db, REFERENCE_EXTRA)]);

class Crash extends Error {
  override readonly name = 'Crash';
}

describe.each(TRANSPORTS)('the kept experiment summary over %s', (transport) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase({ transport });
  });
  afterAll(async () => {
    await db.drop();
  });

  const start = async (id: string, agent = 'random') => {
    await startExperiment(
      { experimentId: id, agent, provider: 'baseline', agentSeed: 7, maze: GENERATED, config: LOOPING },
      new PgStore(db),
    );
    return id;
  };

  it('equals the recomputed summary turn by turn while a run goes, and after it ends', async () => {
    const id = await start(`${transport}-turns`);
    // most turns from one store's memory of the run, every third from a store that rebuilds it from the log
    const remembering = new PgStore(db);
    let turns = 1;
    for (; ; turns++) {
      const store = turns % 3 === 0 ? new PgStore(db) : remembering;
      const t = await runTurn(id, turns, { store, agents: baselineAgents });
      expect(await kept(db)).toEqual(await recomputed(db));
      if (t.goalFound || t.actionsTaken >= LOOPING.max_moves || t.halt) break;
    }
    const [[summary]] = await kept(db);
    // the run exercised what a kept value can get wrong: loops, signals, the phase, many turns
    expect(summary).toMatchObject({ status: 'running', turns });
    expect(Number(summary.loop_cells)).toBeGreaterThan(0);
    expect(Number(summary.stuck_signals)).toBeGreaterThan(0);
    expect(summary.agent_phase).not.toBe('exploring');
    // finalize recomputes from the log
    await new PgStore(db).finalizeExperiment(id, { status: 'timeout', stopReason: 'max_moves' });
    expect(await kept(db)).toEqual(await recomputed(db));
  });

  it('counts a turn once when it was rolled back and done again, or committed and retried', async () => {
    const id = await start(`${transport}-retried`);
    await runTurn(id, 1, { store: new PgStore(db), agents: baselineAgents });
    const store = new PgStore(db);
    // turn 2 runs its statement in a transaction that is rolled back (pg; the Data API's abandoned transaction is
    // faults.test.ts's business), then commits and "dies" before answering: both are retried
    const crashing = (point: 'rolled_back' | 'after_commit'): EngineStore => ({
      loadTurnContext: (i, o) => store.loadTurnContext(i, o),
      findTurn: (i, n) => store.findTurn(i, n),
      async commitTurn(turn: TurnWrite) {
        if (point === 'after_commit') {
          await store.commitTurn(turn);
          throw new Crash('died after the commit');
        }
        const { name, text, values } = commitTurnQuery(turn);
        const client = await db.pool.connect(); // pg's pool under either transport
        await client.query('BEGIN');
        await client.query({ name, text, values });
        await client.query('ROLLBACK');
        client.release();
        throw new Crash('rolled back');
      },
    });
    await expect(runTurn(id, 2, { store: crashing('rolled_back'), agents: baselineAgents })).rejects.toThrow(Crash);
    expect(await kept(db)).toEqual(await recomputed(db));
    await expect(runTurn(id, 2, { store: crashing('after_commit'), agents: baselineAgents })).rejects.toThrow(Crash);
    const replay = await runTurn(id, 2, { store: new PgStore(db), agents: baselineAgents });
    expect(replay.replayed).toBe(true);
    // a turn committed twice by two processes: the second's conditional update writes nothing
    expect(await kept(db)).toEqual(await recomputed(db));
    const [[summary]] = (await kept(db)).map((rows) => rows.filter((r) => r.experiment_id === id));
    expect(summary).toMatchObject({ turns: 2 });
  });

  it('goes on from the kept row when another process resumes an interrupted run', async () => {
    const id = await start(`${transport}-resumed`);
    await runTurn(id, 1, { store: new PgStore(db), agents: baselineAgents });
    await runTurn(id, 2, { store: new PgStore(db), agents: baselineAgents });
    await db.query(
      "UPDATE experiments SET interrupted_at = now(), interrupted_reason = 'SIGTERM to ariadne run' WHERE id = $1",
      [id],
    );
    expect(await kept(db)).toEqual(await recomputed(db));
    const { summary } = await runLocalExperiment((await resumeInput(db, id)) as never, { db });
    expect(summary!.status).not.toBe('running');
    expect(await kept(db)).toEqual(await recomputed(db));
  });

  it('equals the recomputed summary after runs of every agent kind, finished and failed', async () => {
    const ids: Array<string | null> = [];
    for (const agent of ['random', 'frontier'])
      ids.push((await runLocalExperiment({ agent, agentSeed: 3, maze: MAZE, config: LOOPING }, { db })).experimentId);
    const ollama = (model: string) =>
      runLocalExperiment(
        {
          agent: 'ollama',
          model,
          maze: MAZE,
          config: { ollama: { host: sims.ollamaUrl }, retry: FAST_RETRY, max_moves: 40, stuck_policy: 'observe' },
        },
        { db, retryIntervals: NO_WAIT },
      );
    ids.push((await ollama('qwen2.5:7b')).experimentId);
    // a 404: the run ends failed
    ids.push(
      await ollama('no-such-model:1b').then(
        () => null,
        (err: { experimentId?: string }) => err.experimentId ?? null,
      ),
    );
    const bedrock = bedrockRunner(sims, () => db, MAZE);
    ids.push((await bedrock('us.anthropic.claude-sonnet-4-6', { max_moves: 40 })).experimentId);
    expect(ids.every((i) => i !== null)).toBe(true);
    const [summaries, extra] = await kept(db);
    expect([summaries, extra]).toEqual(await recomputed(db));
    const mine = summaries.filter((r) => ids.includes(r.experiment_id as string));
    expect(mine.map((r) => r.agent)).toEqual(expect.arrayContaining(['random', 'frontier', 'ollama', 'bedrock']));
    // the model runs called a model, were priced (bedrock) or not (qwen), and the missing model failed
    expect(mine.some((r) => Number(r.llm_calls) > 0 && r.input_tokens !== null)).toBe(true);
    expect(mine.map((r) => r.status)).toContain('failed');
    // the same row read through the Sql port (the Data API under that transport)
    const { rows } = await db.query<Row>('SELECT * FROM experiment_summary WHERE experiment_id = $1', [ids[4]]);
    expect(Number(rows[0].llm_calls)).toBe(Number(mine.find((r) => r.experiment_id === ids[4])!.llm_calls));
  });
});
