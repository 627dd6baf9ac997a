// Whole experiments through the synthesized state machine, run locally.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { runLocalExecution } from '../state-machine/local-runner.ts';
import { chunkDefinition, experimentDefinition } from '../state-machine/definition.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { startExperiment } from '../core/engine/experiment.ts';
import { baselineAgents } from '../core/providers/baselines.ts';
import { STATES } from '../core/machine/states.ts';
import type { TurnSummary } from '../core/engine/store.ts';
import { tableCounts, testDatabase, type TestDatabase } from './support/db.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe('local execution of the synthesized state machine', () => {
  it('runs the definition CDK synthesizes, with every state of the design', () => {
    const def = experimentDefinition();
    expect(def.StartAt).toBe(STATES.StartExperiment);
    // nested: the turn loop's states are in both machines, ChunkDone only in the Express one
    const chunk = chunkDefinition()!;
    expect(chunk.StartAt).toBe(STATES.ProviderRouter);
    const all = new Set([...Object.keys(def.States), ...Object.keys(chunk.States)]);
    expect([...all].sort()).toEqual(Object.values(STATES).sort());
    expect(Object.keys(def.States)).not.toContain(STATES.ChunkDone);
    // standard: every state but the chunks' in the one machine
    const standard = Object.keys(experimentDefinition('standard').States).sort();
    expect(standard).toEqual(
      Object.values(STATES)
        .filter((s) => !s.startsWith('Chunk') && s !== 'RunChunk')
        .sort(),
    );
  });

  it('frontier finds the goal on a 30x30 medium maze; tables agree with the summary', async () => {
    const turns: TurnSummary[] = [];
    const { experimentId, summary, output } = await runLocalExperiment(
      { agent: 'frontier', maze: { generator: 'medium', size: 30, seed: 7 } },
      { db, onTurn: (t) => turns.push(t) },
    );
    expect(summary).not.toBeNull();
    expect(summary!).toMatchObject({
      status: 'completed',
      goal_found: true,
      stop_reason: 'goal_found',
      maze_width: 30,
    });
    expect(summary!.completed_at).toBeInstanceOf(Date);
    expect((output as { result: { status: string } }).result.status).toBe('completed');

    const exp = (await db.pool.query('SELECT * FROM experiments WHERE id = $1', [experimentId])).rows[0];
    const turnRows = (
      await db.pool.query('SELECT * FROM turns WHERE experiment_id = $1 ORDER BY turn_number', [experimentId])
    ).rows;
    const actionRows = (
      await db.pool.query('SELECT * FROM actions WHERE experiment_id = $1 AND executed ORDER BY step_number', [
        experimentId,
      ])
    ).rows;
    expect(exp.actions_taken).toBe(summary!.actions);
    expect(actionRows).toHaveLength(summary!.actions);
    expect(actionRows.map((a) => a.step_number)).toEqual(Array.from({ length: actionRows.length }, (_, i) => i + 1));
    expect(turnRows).toHaveLength(summary!.turns);
    expect(turnRows.map((t) => t.turn_number)).toEqual(turns.map((t) => t.turnNumber));
    expect(turnRows.reduce((n, t) => n + t.actions_executed, 0)).toBe(summary!.actions);
    expect(turnRows.every((t) => t.llm_calls === 0 && t.input_tokens === null)).toBe(true); // a baseline calls no model
    expect(actionRows.at(-1)!.goal_found).toBe(true);
    expect(actionRows.slice(0, -1).every((a) => !a.goal_found)).toBe(true);
    // each action starts where the previous one ended
    for (let i = 1; i < actionRows.length; i++) {
      expect([actionRows[i].from_x, actionRows[i].from_y]).toEqual([actionRows[i - 1].to_x, actionRows[i - 1].to_y]);
    }
    expect([exp.position_x, exp.position_y]).toEqual([actionRows.at(-1)!.to_x, actionRows.at(-1)!.to_y]);
    expect(summary!.efficiency).toBeCloseTo(summary!.optimal_moves / summary!.actions, 4);
    expect(summary!.tiles_seen).toBe(exp.tiles_seen);
  });

  it('stops at max_moves with status timeout', async () => {
    const { summary } = await runLocalExperiment(
      { agent: 'random', agentSeed: 3, maze: { generator: 'perfect', size: 41, seed: 2 }, config: { max_moves: 60 } },
      { db },
    );
    expect(summary).toMatchObject({
      status: 'timeout',
      stop_reason: 'max_moves',
      goal_found: false,
      actions: 60,
      turns: 8,
    });
  });

  it('the random agent is reproducible from its seed', async () => {
    const run = () =>
      runLocalExperiment(
        { agent: 'random', agentSeed: 11, maze: { generator: 'light', size: 21, seed: 5 }, config: { max_moves: 40 } },
        { db },
      );
    const [a, b] = [await run(), await run()];
    const path = async (id: string | null) =>
      (await db.pool.query('SELECT tool, to_x, to_y FROM actions WHERE experiment_id = $1 ORDER BY step_number', [id]))
        .rows;
    expect(await path(a.experimentId)).toEqual(await path(b.experimentId));
    expect(a.experimentId).not.toBe(b.experimentId);
  });

  it('a handler error is caught and finalizes the experiment as failed with its reason', async () => {
    let calls = 0;
    const run = runLocalExperiment(
      { agent: 'frontier', maze: { generator: 'sparse', size: 21, seed: 1 } },
      {
        db,
        wrap: (state, handler) =>
          state !== STATES.InvokeBaselineAgent
            ? handler
            : async (event) => {
                if (++calls === 3)
                  throw Object.assign(new Error('model endpoint exploded'), { name: 'ProviderPermanentError' });
                return handler(event);
              },
      },
    );
    // The machine ends in its Fail state with the original error; the row was finalized before that.
    await expect(run).rejects.toThrow(/model endpoint exploded/);
    const { rows } = await db.pool.query(
      'SELECT status, stop_reason, failure_reason, completed_at FROM experiments WHERE failure_reason ' +
        "LIKE '%exploded%'",
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'failed', stop_reason: 'error' });
    expect(rows[0].failure_reason).toBe('ProviderPermanentError: model endpoint exploded');
    expect(rows[0].completed_at).toBeInstanceOf(Date);
  });

  it('bad StartExecution input fails the execution with the field named and writes nothing', async () => {
    const before = await tableCounts(db);
    const store = new PgStore(db);
    const run = runLocalExecution(
      { agent: 'frontier', maze: { generator: 'medium', size: 30, seed: 7 }, config: { max_moves: -1 } },
      { deps: { store, agents: baselineAgents, now: () => new Date() } },
    );
    await expect(run).rejects.toThrow(/input\.config\.max_moves: .*(got -1)/);
    expect(await tableCounts(db)).toEqual(before);
  });

  it('a failing execution finalizes only its own experiment, even when its input names another one', async () => {
    const store = new PgStore(db);
    const deps = { store, agents: baselineAgents, now: () => new Date() };
    const other = await startExperiment(
      {
        agent: 'random',
        provider: 'baseline',
        executionArn: 'arn:aws:states:local:000000000000:execution:AriadneExperiments:other',
        maze: { kind: 'generated', spec: { generator: 'light', width: 11, height: 11, seed: 1 } },
      },
      store,
    );
    const run = runLocalExecution(
      { experimentId: other.experimentId, agent: 'frontier', maze: { generator: 'medium', size: 4, seed: 7 } },
      { deps },
    );
    await expect(run).rejects.toThrow(/input\.maze/);
    const { rows } = await db.pool.query('SELECT status FROM experiments WHERE id = $1', [other.experimentId]);
    expect(rows[0].status).toBe('running');
  });
});
