// A turn's deadline (engine/turn-deadline.ts) with an Ollama model whose replies are slow: the turn stops starting
// calls that would not end before it, stops a call running at it, and commits a whole turn (stop reason `deadline`);
// the next turn goes on, nothing lost or doubled. The handler takes the deadline from the Lambda context.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTurn } from '../core/engine/turn.ts';
import { TurnDeadline } from '../core/engine/turn-deadline.ts';
import { ModelCallDeadlineError } from '../core/errors.ts';
import { startExperiment } from '../core/engine/experiment.ts';
import { runTurnHandler } from '../functions/run-turn.ts';
import { TURN_COMMIT_MARGIN_MS } from '../core/config/budgets.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { agents } from '../core/providers/agents.ts';
import { providerSims } from './support/provider-sims.ts';
import type { Fault } from '../simulators/sim-server.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

const sims = providerSims();
const { ollama } = sims;
let db: TestDatabase;
let store: PgStore;
beforeAll(async () => {
  db = await testDatabase();
  store = new PgStore(db);
});
afterAll(async () => {
  await db.drop();
});

// An open 15x15 field, goal in the far corner: nothing a dozen moves from the start can see it.
const openField = () => {
  const rows = Array.from({ length: 15 }, () => Array(15).fill(0));
  rows[14][14] = 2;
  return rows;
};

async function newExperiment(config: Record<string, unknown>, promptText?: string) {
  const { experimentId } = await startExperiment(
    {
      agent: 'ollama',
      provider: 'ollama',
      model: 'qwen2.5:7b',
      maze: { kind: 'inline', grid: openField(), start: { x: 0, y: 0 } },
      config: { ollama: { host: sims.ollamaUrl }, max_actions_per_turn: 8, ...config },
      promptText,
    },
    store,
  );
  return experimentId;
}

const retry = (timeoutMs: number) => ({
  max_attempts: 3,
  base_delay_ms: 1,
  max_delay_ms: 5,
  max_total_ms: 60_000,
  timeout_ms: timeoutMs,
});
const chats = () => ollama.requests.filter((r) => r.path === '/api/chat');

async function rows(id: string) {
  const actions = (
    await db.pool.query(
      `SELECT turn_number, step_number, from_x, from_y, to_x, to_y FROM actions
       WHERE experiment_id = $1 AND executed ORDER BY turn_number, call_index`,
      [id],
    )
  ).rows;
  const turns = (
    await db.pool.query(
      'SELECT turn_number, stop_reason, actions_executed, llm_calls FROM turns WHERE experiment_id = $1 ' +
        'ORDER BY turn_number',
      [id],
    )
  ).rows;
  const experiment = (
    await db.pool.query(
      'SELECT actions_taken, turns_completed, position_x, position_y FROM experiments WHERE id = $1',
      [id],
    )
  ).rows[0];
  return { actions, turns, experiment };
}

/** Every executed step 1..n once, each move starting where the one before it ended, the counters equal to the rows. */
function continuous(r: Awaited<ReturnType<typeof rows>>) {
  expect(r.actions.map((a) => a.step_number)).toEqual(r.actions.map((_, i) => i + 1));
  for (let i = 1; i < r.actions.length; i++)
    expect([r.actions[i].from_x, r.actions[i].from_y]).toEqual([r.actions[i - 1].to_x, r.actions[i - 1].to_y]);
  const last = r.actions.at(-1);
  expect(r.experiment).toEqual({
    actions_taken: r.actions.length,
    turns_completed: r.turns.length,
    position_x: last.to_x,
    position_y: last.to_y,
  });
}

// Two model calls make a reply in the observe state (look, then decide): the deadline can stop the second.
const WORKFLOW = `workflow: look_then_move
system: |
  You explore a maze of 15x15 tiles.
states: [observe, plan, act]
initial_state: observe
variables:
  cycles: 0
transitions:
  - { from: observe, to: plan }
  - { from: plan, to: act }
  - { from: plan, to: observe }
  - { from: act, to: observe, condition: "actions_in_state >= 4" }
steps:
  - name: look
    type: llm
    in_state: observe
    prompt: "Describe what you see."
    tools: []
  - name: count
    type: code
    in_state: observe
    set: { cycles: "cycles + 1" }
  - name: decide
    type: transition
    in_state: plan
    prompt: "Act now?"
    transition_map: { act: act, look: observe }
    on_failure: { action: skip }
  - name: move
    type: llm
    in_state: act
    prompt: "Make your next moves."
    tools: [move_north, move_south, move_east, move_west]
`;

describe('a turn with a deadline', () => {
  it('the handler stops starting model calls that would end past the deadline; the next turn goes on', async () => {
    // each reply takes 1.3 s; a call may take 3 s; the deadline is 5 s away: two calls start (the second with 3.7 s
    // left), the third would start with 2.4 s left, which cannot fit one call, so it never does
    const id = await newExperiment({ retry: retry(3_000) });
    const handler = runTurnHandler({ store, agents, now: () => new Date() });
    const state = (turnNumber: number) => ({
      experimentId: id,
      llmProvider: 'ollama',
      turnNumber,
      executionStartTurn: 1,
      startedAt: new Date().toISOString(),
      limits: { maxMoves: 10_000, maxDurationMinutes: 120, maxTurns: 2_000, turnsPerExecution: 100 },
    });
    ollama.faults = [
      { kind: 'slow', ms: 1_300 },
      { kind: 'slow', ms: 1_300 },
      { kind: 'slow', ms: 20_000 },
    ];
    const context = { getRemainingTimeInMillis: () => 5_000 + TURN_COMMIT_MARGIN_MS };
    const t0 = Date.now();
    const first = await handler(state(1), context);
    expect(Date.now() - t0).toBeLessThan(4_500);
    expect(first).toMatchObject({ stopReason: 'deadline', actionsExecuted: 4, actionsTaken: 4, replayed: false });
    expect(chats()).toHaveLength(2);
    // in-process (no context) the turn has its function's timeout: a whole turn
    ollama.faults = [];
    const second = await handler(state(2));
    expect(second).toMatchObject({ stopReason: 'action_limit', actionsExecuted: 8, actionsTaken: 12 });
    const r = await rows(id);
    expect(r.turns).toEqual([
      { turn_number: 1, stop_reason: 'deadline', actions_executed: 4, llm_calls: 2 },
      { turn_number: 2, stop_reason: 'action_limit', actions_executed: 8, llm_calls: 4 },
    ]);
    continuous(r);
    // a retried invocation of the cut turn replays it: nothing is written twice
    expect(await handler(state(1), context)).toMatchObject({ stopReason: 'deadline', actionsExecuted: 4 });
    expect(await rows(id)).toEqual(r);
  });

  it('a retry that cannot end before the deadline is not started; the conversation has each result once', async () => {
    // the first reply comes at once; the second call outlasts its 2 s timeout, and with the deadline 3 s away no
    // retry fits: the turn ends with the first reply's two moves, whose results the next turn's prompt carries
    const id = await newExperiment({ retry: retry(2_000), memory: 'conversation' });
    ollama.faults = [
      { kind: 'slow', ms: 0 },
      { kind: 'slow', ms: 20_000 },
    ];
    const t0 = Date.now();
    const first = await runTurn(id, 1, { store, agents, deadline: TurnDeadline.after(3_000) });
    expect(Date.now() - t0).toBeLessThan(2_900);
    expect(first).toMatchObject({ stopReason: 'deadline', actionsExecuted: 2 });
    expect(chats()).toHaveLength(2);
    ollama.faults = [];
    const sent = chats().length;
    await runTurn(id, 2, { store, agents });
    const next = chats()[sent].body as { messages: Array<{ role: string; content: string }> };
    const results = next.messages.filter((m) => m.role === 'tool');
    expect(results).toHaveLength(2);
    expect(new Set(results.map((m) => m.content)).size).toBe(2);
    const r = await rows(id);
    expect(r.turns.map((t) => [t.stop_reason, t.actions_executed, t.llm_calls])).toEqual([
      ['deadline', 2, 1],
      ['action_limit', 8, 4],
    ]);
    continuous(r);
  });

  it('a workflow reply stopped between its calls is undone: the memory is that of the last whole reply', async () => {
    // look, decide, move, move: two replies of two moves each; then look, count and a decide that never answers
    const firstFour: Fault[] = [
      { kind: 'say', text: 'A corridor.' },
      { kind: 'say', text: 'act' },
      { kind: 'slow', ms: 0 },
      { kind: 'slow', ms: 0 },
    ];
    const workflowRun = (config: Record<string, unknown>) =>
      newExperiment({ retry: retry(1_500), ...config }, WORKFLOW);
    // the same two replies, ended by the action limit: the memory they leave
    const whole = await workflowRun({ max_actions_per_turn: 4 });
    ollama.faults = [...firstFour];
    expect(await runTurn(whole, 1, { store, agents })).toMatchObject({ stopReason: 'action_limit' });
    const cut = await workflowRun({});
    ollama.faults = [...firstFour, { kind: 'say', text: 'More corridor.' }, { kind: 'slow', ms: 20_000 }];
    const turn = await runTurn(cut, 1, { store, agents, deadline: TurnDeadline.after(2_500) });
    expect(turn).toMatchObject({ stopReason: 'deadline', actionsExecuted: 4 });
    expect(chats()).toHaveLength(4 + 6);
    const memory = async (id: string) =>
      (await db.pool.query('SELECT agent_memory FROM experiments WHERE id = $1', [id])).rows[0].agent_memory;
    expect(await memory(cut)).toEqual(await memory(whole));
    expect(await memory(cut)).toMatchObject({ state: 'act', vars: { cycles: 1 } });
  });

  it("stops the turn's first call at the deadline: nothing is committed, and the turn runs again whole", async () => {
    const id = await newExperiment({ retry: retry(10_000) });
    ollama.faults = [{ kind: 'slow', ms: 20_000 }];
    const t0 = Date.now();
    await expect(runTurn(id, 1, { store, agents, deadline: TurnDeadline.after(600) })).rejects.toThrow(
      ModelCallDeadlineError,
    );
    // stopped at the deadline, not at the call's own 10 s timeout
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect((await rows(id)).turns).toEqual([]);
    ollama.faults = [];
    expect(await runTurn(id, 1, { store, agents })).toMatchObject({ stopReason: 'action_limit', actionsExecuted: 8 });
    continuous(await rows(id));
  });
});
