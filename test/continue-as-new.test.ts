// Continue as new: with a tiny history budget an experiment hands over to
// fresh executions; it must log exactly what one execution would have.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { EVENTS_PER_TURN } from '../core/config/experiment-config.ts';
import { STATES } from '../core/machine/states.ts';
import { MAX_HISTORY_EVENTS } from '../core/machine/history-events.ts';
import type { TaskTokenNotifier } from '../core/engine/task-tokens.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { turnReserveSeconds } from '../core/machine/tasks.ts';
import { experimentDefinition as def } from '../state-machine/definition.ts';

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

  it("counts each execution's AWS history event by event, inside the budget the engine plans with", async () => {
    const budget = 5 * EVENTS_PER_TURN;
    // each turn in the Standard history: the budget is planned for this, the costliest case
    const run = await runLocalExperiment(experiment(budget), { db, orchestration: 'standard' });
    expect(run.historyEvents).toHaveLength(run.executions.length);
    expect(run.executions.length).toBeGreaterThanOrEqual(3);
    // a full execution: 5 turns of at least TURN_EVENTS each (two Lambda Tasks, two Choices, a Pass), plus the
    // start, the hand-over and the end; never more than the budget, which is far under AWS's 25,000
    const full = run.historyEvents.slice(0, -1);
    for (const events of full) {
      expect(events).toBeGreaterThan(5 * (EVENTS_PER_TURN - 4));
      expect(events).toBeLessThanOrEqual(budget);
    }
    expect(Math.max(...run.historyEvents)).toBeLessThan(MAX_HISTORY_EVENTS);
    // nested, a turn adds nothing to the Standard history: a chunk (of every turn the execution has) adds a few events
    const nested = await runLocalExperiment(experiment(budget), { db });
    expect(nested.executions).toHaveLength(run.executions.length);
    for (const events of nested.historyEvents.slice(0, -1)) expect(events).toBeLessThan(5 * (EVENTS_PER_TURN - 4));
  });

  it('a continuation name already taken means the hop was made: the execution ends continued, not failed', async () => {
    const experimentId = 'hop-made-before';
    const run = await runLocalExperiment(
      { ...experiment(3 * EVENTS_PER_TURN), experimentId },
      // the next execution's name is used (an earlier try started it, its answer lost); no waiting between retries
      { db, executionNames: new Set([`${experimentId}-t4`]), retryIntervals: { [STATES.ContinueAsNew]: 0 } },
    );
    expect(run.executions).toHaveLength(1);
    expect(run.output).toMatchObject({
      continuedAs: { Error: 'StepFunctions.ExecutionAlreadyExistsException' },
      turnNumber: 3,
    });
    // the experiment is left to the execution that runs it on: not finalized, not failed
    expect(run.summary).toMatchObject({ status: 'running', turns: 3, failure_reason: null });
  });

  it('hands over before the execution times out, so an experiment longer than an execution finishes', async () => {
    const single = await runLocalExperiment(experiment(), { db });
    // each turn takes 20 minutes on the handlers' clock: an execution (180 minutes) holds a few turns only
    let clock = Date.now();
    const run = await runLocalExperiment(
      { ...experiment(), config: { max_moves: 200, max_duration_minutes: 7 * 24 * 60 } },
      {
        db,
        now: () => new Date(clock),
        onTurn: () => {
          clock += 20 * 60_000;
        },
      },
    );
    expect(def().TimeoutSeconds).toBe(180 * 60);
    const perExecution = Math.ceil((180 * 60 - turnReserveSeconds('baseline')) / (20 * 60));
    expect(run.executions).toHaveLength(Math.ceil(single.summary!.turns / perExecution));
    expect(run.executions.length).toBeGreaterThan(1);
    expect(run.summary).toMatchObject({
      status: single.summary!.status,
      stop_reason: single.summary!.stop_reason,
      actions: single.summary!.actions,
      turns: single.summary!.turns,
    });
    // every action logged once, as in one execution
    expect(await actionLog(run.experimentId)).toEqual(await actionLog(single.experimentId));
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

describe("a sweep's task token", () => {
  /** Records every SendTaskSuccess with the experiment's status at that moment; a second send of a token fails as
   * Step Functions answers it (TaskTimedOut: the task is closed). */
  function recorder() {
    const sent: Array<{ token: string; output: any; statusThen: string | null }> = [];
    const notifier: TaskTokenNotifier = {
      async succeed(token, output) {
        const id = (output as { experimentId: string | null }).experimentId;
        const row = id ? (await db.pool.query('SELECT status FROM experiments WHERE id = $1', [id])).rows[0] : null;
        const closed = sent.some((s) => s.token === token);
        sent.push({ token, output, statusThen: row?.status ?? null });
        if (closed) throw Object.assign(new Error('Task Timed Out'), { name: 'TaskTimedOut' });
      },
    };
    return { sent, notifier };
  }

  it('travels through continue-as-new hops and is returned once, at the real end, with the outcome', async () => {
    const { sent, notifier } = recorder();
    const taskToken = `AQB${'x'.repeat(600)}==`;
    const starts: unknown[] = [];
    const run = await runLocalExperiment(
      { ...experiment(3 * EVENTS_PER_TURN), experimentId: 'token-hops', taskToken },
      {
        db,
        taskTokens: notifier,
        // what each execution's StartExperiment hands the loop: the token, in every hop
        wrap: (state, handler) =>
          state === STATES.StartExperiment
            ? async (event) => {
                const out = await handler(event);
                starts.push(out);
                return out;
              }
            : handler,
      },
    );
    expect(run.executions.length).toBe(9);
    expect(starts).toHaveLength(9);
    for (const s of starts) expect(s).toMatchObject({ taskToken });
    expect(sent).toHaveLength(1);
    expect(sent[0].token).toBe(taskToken);
    expect(sent[0].output).toEqual({
      experimentId: 'token-hops',
      status: run.summary!.status,
      stopReason: 'max_moves',
    });
    expect(['completed', 'timeout']).toContain(sent[0].statusThen); // final before the sweep is told
  });

  it('a failed experiment returns it too, once, as failed; an experiment without one sends nothing', async () => {
    const { sent, notifier } = recorder();
    let turns = 0;
    await expect(
      runLocalExperiment(
        { ...experiment(2 * EVENTS_PER_TURN), experimentId: 'token-fails', taskToken: 'token-of-a-failed-run' },
        {
          db,
          taskTokens: notifier,
          // the fifth turn (in the third execution) fails for good
          wrap: (state, handler) =>
            state === STATES.InvokeBaselineAgent
              ? async (event) => {
                  if (++turns === 5) throw Object.assign(new Error('agent broke'), { name: 'AgentBrokeError' });
                  return handler(event);
                }
              : handler,
        },
      ),
    ).rejects.toThrow(/experiment token-fails failed/);
    expect(sent).toEqual([
      {
        token: 'token-of-a-failed-run',
        output: { experimentId: 'token-fails', status: 'failed', stopReason: 'error' },
        statusThen: 'failed',
      },
    ]);

    const quiet = recorder();
    await runLocalExperiment(
      { ...experiment(3 * EVENTS_PER_TURN), experimentId: 'no-token' },
      {
        db,
        taskTokens: quiet.notifier,
      },
    );
    expect(quiet.sent).toEqual([]);
  });

  it('a token is validated like the rest of the input', async () => {
    await expect(
      runLocalExperiment({ ...experiment(), taskToken: '' }, { db, taskTokens: recorder().notifier }),
    ).rejects.toThrow(/taskToken/);
    await expect(
      runLocalExperiment({ ...experiment(), taskToken: 'x'.repeat(2049) }, { db, taskTokens: recorder().notifier }),
    ).rejects.toThrow(/taskToken/);
  });
});
