import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTurn } from '../core/engine/turn.ts';
import { startExperiment } from '../core/engine/experiment.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { baselineAgents } from '../core/providers/baselines.ts';
import { tableDump, testDatabase, TRANSPORTS, type TestDatabase } from './support/db.ts';
import { scriptedAgents } from './support/scripted-agent.ts';
import type { Observation } from '../core/engine/agent.ts';

let db: TestDatabase;
let store: PgStore;

// An open 9x9 field: no move fails, so counts depend only on the engine.
const openRows = () => {
  const rows = Array.from({ length: 9 }, () => Array(9).fill(0));
  rows[8][8] = 2;
  return rows;
};

async function newExperiment(agent = 'scripted', config = {}) {
  const started = await startExperiment(
    {
      agent,
      provider: 'baseline',
      maze: { kind: 'inline', grid: openRows(), start: { x: 0, y: 0 } },
      config,
    },
    store,
  );
  return started.experimentId;
}

describe.each(TRANSPORTS)('over %s', (transport) => {
  beforeAll(async () => {
    db = await testDatabase({ transport });
    store = new PgStore(db);
  });
  afterAll(async () => {
    await db.drop();
  });

  describe('turn engine', () => {
    it('runs at most 8 actions when the agent asks for 10 in one reply; the rest are logged as refused', async () => {
      const id = await newExperiment();
      const ten = [
        'move_east',
        'move_south',
        'move_west',
        'move_north',
        'move_east',
        'move_south',
        'move_west',
        'move_north',
        'move_east',
        'move_east',
      ];
      const turn = await runTurn(id, 1, { store, agents: scriptedAgents([ten]) });
      expect(turn).toMatchObject({ actionsExecuted: 8, callsRefused: 2, stopReason: 'action_limit', actionsTaken: 8 });
      const { rows } = await db.pool.query(
        'SELECT call_index, step_number, executed, outcome FROM actions WHERE experiment_id = $1 ORDER BY call_index',
        [id],
      );
      expect(rows).toHaveLength(10);
      expect(rows.filter((r) => r.executed).map((r) => r.step_number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(rows.slice(8)).toEqual([
        { call_index: 8, step_number: null, executed: false, outcome: 'refused_action_limit' },
        { call_index: 9, step_number: null, executed: false, outcome: 'refused_action_limit' },
      ]);
      const exp = await db.pool.query('SELECT actions_taken, turns_completed FROM experiments WHERE id = $1', [id]);
      expect(exp.rows[0]).toEqual({ actions_taken: 8, turns_completed: 1 });
    });

    it('ends the turn when the agent stops calling tools, and feeds results back between replies', async () => {
      const id = await newExperiment();
      const observations: Observation[] = [];
      const turn = await runTurn(id, 1, {
        store,
        agents: scriptedAgents([['move_east', 'move_east'], ['move_south'], []], observations),
      });
      expect(turn).toMatchObject({ actionsExecuted: 3, stopReason: 'no_tool_calls', position: { x: 2, y: 1 } });
      expect(observations.map((o) => o.results.length)).toEqual([0, 2, 1]);
      expect(observations[1].results.map((r) => r.to)).toEqual([
        { x: 1, y: 0 },
        { x: 2, y: 0 },
      ]);
      const t = await db.pool.query('SELECT llm_calls, stop_reason FROM turns WHERE experiment_id = $1', [id]);
      expect(t.rows[0]).toEqual({ llm_calls: 3, stop_reason: 'no_tool_calls' });
    });

    it('a replayed turn returns the committed result and leaves every table unchanged', async () => {
      const id = await newExperiment('random');
      const first = await runTurn(id, 1, { store, agents: baselineAgents });
      const before = await tableDump(db);
      // A retry with an agent that would do something else entirely:
      const replay = await runTurn(id, 1, { store, agents: scriptedAgents([['move_south', 'move_south']]) });
      expect(await tableDump(db)).toBe(before);
      expect(replay).toEqual({ ...first, replayed: true });
    });

    it('two invocations of the same turn racing: exactly one is written, both return it', async () => {
      const id = await newExperiment('random');
      const [a, b] = await Promise.all([
        runTurn(id, 1, { store, agents: scriptedAgents([['move_east', 'move_east', 'move_east']]) }),
        runTurn(id, 1, { store, agents: scriptedAgents([['move_south']]) }),
      ]);
      expect(a.position).toEqual(b.position);
      expect(a.actionsTaken).toBe(b.actionsTaken);
      const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM actions WHERE experiment_id = $1', [id]);
      expect(rows[0].n).toBe(a.actionsTaken);
      const turns = await db.pool.query('SELECT count(*)::int AS n FROM turns WHERE experiment_id = $1', [id]);
      expect(turns.rows[0].n).toBe(1);
    });

    it('refuses a turn out of order and a turn of a finished experiment, writing nothing', async () => {
      const id = await newExperiment('random');
      const before = await tableDump(db);
      await expect(runTurn(id, 3, { store, agents: baselineAgents })).rejects.toMatchObject({
        name: 'TurnOutOfOrderError',
      });
      await store.finalizeExperiment(id, { status: 'failed', stopReason: 'error', failureReason: 'test' });
      const afterFinalize = await tableDump(db);
      expect(afterFinalize).not.toBe(before);
      await expect(runTurn(id, 1, { store, agents: baselineAgents })).rejects.toMatchObject({
        name: 'ExperimentClosedError',
      });
      expect(await tableDump(db)).toBe(afterFinalize);
    });

    it('stops mid-turn at max_moves and logs the recall cooldown refusal', async () => {
      const id = await newExperiment('scripted', { max_moves: 5, recall_interval: 10 });
      const turn = await runTurn(id, 1, {
        store,
        agents: scriptedAgents([
          ['recall_all', 'move_east', 'recall_all', 'move_east', 'move_east', 'move_east', 'move_east'],
        ]),
      });
      expect(turn).toMatchObject({ actionsExecuted: 5, callsRefused: 2, stopReason: 'max_moves', actionsTaken: 5 });
      const { rows } = await db.pool.query(
        'SELECT outcome, message FROM actions WHERE experiment_id = $1 ORDER BY call_index',
        [id],
      );
      expect(rows.map((r) => r.outcome)).toEqual([
        'recalled',
        'moved',
        'recall_cooldown',
        'moved',
        'moved',
        'refused_turn_over',
        'refused_turn_over',
      ]);
      expect(rows[2].message).toMatch(/recall refused: last recall was 2 actions ago/);
    });

    it('a cold process rebuilds the state from the log and continues exactly as a warm one', async () => {
      // Recalls every other action (exercising the recall window and cooldown)
      // and otherwise moves like the random agent (which reads the known map).
      const agents = (identity: Parameters<typeof baselineAgents>[0]) => {
        const random = baselineAgents({ ...identity, agent: 'random' });
        return {
          act: async (obs: Observation) =>
            obs.actionsTaken % 3 === 0 ? { calls: [{ name: 'recall_all', arguments: {} }] } : random.act(obs),
        };
      };
      const config = { recall_interval: 4, max_recall_actions: 5 };
      const start = async (s: PgStore) =>
        (
          await startExperiment(
            {
              agent: 'random',
              provider: 'baseline',
              agentSeed: 9,
              maze: { kind: 'generated', spec: { generator: 'light', width: 21, height: 21, seed: 5 } },
              config,
            },
            s,
          )
        ).experimentId;
      const warmId = await start(store);
      for (let n = 1; n <= 6; n++) await runTurn(warmId, n, { store, agents });
      const coldId = await start(new PgStore(db));
      for (let n = 1; n <= 6; n++) await runTurn(coldId, n, { store: new PgStore(db), agents });
      const log = async (id: string) =>
        (
          await db.pool.query(
            'SELECT step_number, tool, outcome, to_x, to_y, new_tiles_seen, recalled FROM actions WHERE ' +
              'experiment_id = $1 ORDER BY step_number',
            [id],
          )
        ).rows;
      const warm = await log(warmId);
      expect(warm).toHaveLength(48);
      expect(new Set(warm.map((a) => a.outcome))).toEqual(new Set(['recalled', 'recall_cooldown', 'moved']));
      expect(await log(coldId)).toEqual(warm);
    });

    it('a warm process whose experiment was finalized elsewhere writes nothing and says why', async () => {
      const id = await newExperiment('random');
      await runTurn(id, 1, { store, agents: baselineAgents }); // `store` now holds the experiment warm
      await new PgStore(db).finalizeExperiment(id, {
        status: 'failed',
        stopReason: 'error',
        failureReason: 'aborted elsewhere',
      });
      const before = await tableDump(db);
      await expect(runTurn(id, 2, { store, agents: baselineAgents })).rejects.toMatchObject({
        name: 'ExperimentClosedError',
      });
      expect(await tableDump(db)).toBe(before);
    });

    it('a warm process whose experiment was advanced elsewhere returns the committed turn', async () => {
      const id = await newExperiment('random');
      await runTurn(id, 1, { store, agents: baselineAgents });
      const other = await runTurn(id, 2, {
        store: new PgStore(db),
        agents: scriptedAgents([['move_east', 'move_east']]),
      });
      const before = await tableDump(db);
      const mine = await runTurn(id, 2, { store, agents: baselineAgents });
      expect(mine).toEqual({ ...other, replayed: true });
      expect(await tableDump(db)).toBe(before);
    });
  });
});
