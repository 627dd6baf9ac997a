// Continue as new: with a tiny history budget an experiment hands over to
// fresh executions; it must log exactly what one execution would have.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { EVENTS_PER_TURN } from '../lambdas/config/experiment-config.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});

const experiment = (budget?: number) => ({
  agent: 'random',
  agentSeed: 5,
  maze: { generator: 'perfect', size: 31, seed: 8 },
  config: { max_moves: 200, ...(budget ? { history_event_budget: budget } : {}) },
});

async function actionLog(id: string | null) {
  return (
    await db.pool.query(
      `SELECT turn_number, call_index, step_number, tool, outcome, from_x, from_y, to_x, to_y, vision, new_tiles_seen
     FROM actions WHERE experiment_id = $1 ORDER BY turn_number, call_index`,
      [id],
    )
  ).rows;
}

describe('continue as new', () => {
  it('an experiment over several executions writes exactly the actions of one execution', async () => {
    const single = await runLocalExperiment(experiment(), { db });
    expect(single.executions).toHaveLength(1);
    // 3 turns per execution: 200 moves at 8 per turn is 25 turns, so 9 executions
    const split = await runLocalExperiment(experiment(3 * EVENTS_PER_TURN), { db });
    expect(split.executions.length).toBeGreaterThanOrEqual(3);
    expect(split.executions.length).toBe(9);
    expect(new Set(split.executions).size).toBe(split.executions.length);
    expect(split.summary).toMatchObject({
      status: single.summary!.status,
      actions: single.summary!.actions,
      turns: single.summary!.turns,
    });
    expect(await actionLog(split.experimentId)).toEqual(await actionLog(single.experimentId));
    const row = (await db.pool.query('SELECT execution_arns FROM experiments WHERE id = $1', [split.experimentId]))
      .rows[0];
    expect(row.execution_arns).toEqual(split.executions);
    // each continuation is named after the experiment and the turn it starts at
    expect(split.executions[1]).toMatch(new RegExp(`:${split.experimentId}-t4$`));
  });

  it('a 64-character experiment id still names its continuations within the 80-character limit', async () => {
    const experimentId = `e${'x'.repeat(63)}`;
    const run = await runLocalExperiment(
      {
        ...experiment(2 * EVENTS_PER_TURN),
        experimentId,
        config: { max_moves: 40, history_event_budget: 2 * EVENTS_PER_TURN },
      },
      { db },
    );
    expect(run.executions.length).toBe(3); // 5 turns, 2 per execution
    expect(run.executions.at(-1)).toMatch(new RegExp(`:${experimentId}-t5$`));
    expect(run.summary).toMatchObject({ actions: 40 });
  });
});
