// The turn engine's rules, through runTurn with a scripted agent and an
// in-memory EngineStore (the engine's own port), so each rule is checked on
// exactly what the engine hands the store, without SQL in between.
import { describe, expect, it } from 'vitest';
import { runTurn } from '../core/engine/turn.ts';
import { cloneState, executeCall, initialState, refuseCall } from '../core/engine/game.ts';
import type { Agent, AgentReply, Observation } from '../core/engine/agent.ts';
import type { EngineStore, ExperimentInfo, TurnSummary, TurnWrite } from '../core/engine/store.ts';
import { experimentConfigSchema, type ExperimentConfigInput } from '../core/config/experiment-config.ts';
import { Grid, buildMaze, type Maze } from '../core/maze/index.ts';

// x grows east, y grows south; S at (0,0), a wall at (2,0), the goal far away at (8,8).
//   012345678
// 0 S.#......
// 1 .........
//   ...
// 8 ........2
function fieldMaze(goal = { x: 8, y: 8 }): Maze {
  const rows = Array.from({ length: 9 }, () => Array<number>(9).fill(0));
  rows[0][2] = 1;
  rows[goal.y][goal.x] = 2;
  return buildMaze(Grid.fromRows(rows), { x: 0, y: 0 }, 'test', null);
}

interface Harness {
  store: EngineStore;
  writes: TurnWrite[];
}

function memoryStore(maze: Maze, configInput: ExperimentConfigInput = {}, info: Partial<ExperimentInfo> = {}): Harness {
  const config = experimentConfigSchema.parse(configInput);
  const writes: TurnWrite[] = [];
  const state = initialState(maze, config);
  const experiment: ExperimentInfo = {
    id: 'e1',
    agent: 'scripted',
    model: null,
    promptText: null,
    agentSeed: 1,
    status: 'running',
    config,
    startedAt: new Date(0),
    ...info,
  };
  const store: EngineStore = {
    // the state is the caller's to change (EngineStore.loadTurnContext): a copy of turn 0's every time
    loadTurnContext: () =>
      Promise.resolve({ experiment, maze, state: cloneState(state), agentState: null, agentMemory: null }),
    findTurn: () => Promise.resolve(null),
    commitTurn: (w) => {
      writes.push(w);
      return Promise.resolve(true);
    },
  };
  return { store, writes };
}

/** An agent answering from a list of replies (then with an empty reply), recording what it was shown. */
function agentOf(replies: AgentReply[], seen: Observation[] = [], callsModel = true) {
  let next = 0;
  const agent: Agent = {
    callsModel,
    act: (obs) => {
      seen.push(obs);
      return Promise.resolve(replies[next++] ?? { calls: [] });
    },
  };
  return () => agent;
}

const calls = (...names: string[]) => names.map((name) => ({ name, arguments: {} }));

async function turn(h: Harness, replies: AgentReply[], seen: Observation[] = [], callsModel = true) {
  const summary = await runTurn('e1', 1, { store: h.store, agents: agentOf(replies, seen, callsModel) });
  expect(h.writes).toHaveLength(1);
  return { summary, write: h.writes[0] };
}

describe('a turn ends', () => {
  it('with empty_reply on a reply of neither tools nor text, no_tool_calls when the agent only talks', async () => {
    const silent = await turn(memoryStore(fieldMaze()), [{ calls: [], text: '' }]);
    expect(silent.summary).toMatchObject({ stopReason: 'empty_reply', actionsExecuted: 0, actionsTaken: 0 });
    expect(silent.write.stopReason).toBe('empty_reply');
    const talking = await turn(memoryStore(fieldMaze()), [{ calls: [], text: 'I am thinking' }]);
    expect(talking.summary.stopReason).toBe('no_tool_calls');
  });

  it('after max_actions_per_turn actions, across replies; the extra calls of the last reply are refused', async () => {
    const seen: Observation[] = [];
    const { summary, write } = await turn(
      memoryStore(fieldMaze(), { max_actions_per_turn: 3 }),
      [{ calls: calls('move_south', 'move_south') }, { calls: calls('move_east', 'move_east', 'move_east') }],
      seen,
    );
    expect(summary).toMatchObject({ stopReason: 'action_limit', actionsExecuted: 3, callsRefused: 2 });
    expect(seen).toHaveLength(2); // the agent is not asked again once the turn's actions are used up
    expect(seen.map((o) => o.actionsLeftInTurn)).toEqual([3, 1]);
    expect(write.actions.map((a) => a.outcome)).toEqual([
      'moved',
      'moved',
      'moved',
      'refused_action_limit',
      'refused_action_limit',
    ]);
    expect(write.actions[3].message).toBe('not executed: a turn runs at most 3 actions');
    expect(write.actions.map((a) => a.step)).toEqual([1, 2, 3, null, null]);
    expect(write.actions.map((a) => a.callIndex)).toEqual([0, 1, 2, 3, 4]);
  });

  it('when the goal comes into view: later calls are refused as turn over, naming goal_found', async () => {
    // The goal at (0,5): seen (range 3) from (0,2), after two moves south.
    const h = memoryStore(fieldMaze({ x: 0, y: 5 }));
    const { summary, write } = await turn(h, [{ calls: calls('move_south', 'move_south', 'move_south') }]);
    expect(summary).toMatchObject({ stopReason: 'goal_found', goalFound: true, actionsExecuted: 2, callsRefused: 1 });
    expect(write.actions[2]).toMatchObject({
      outcome: 'refused_turn_over',
      executed: false,
      step: null,
      message: 'not executed: the turn ended (goal_found)',
      from: { x: 0, y: 2 },
      to: { x: 0, y: 2 },
      goalFound: true,
    });
    expect(write.stateAfter.goalFound).toBe(true);
  });

  it('at max_moves, counted over the whole experiment, not the turn', async () => {
    const { summary, write } = await turn(memoryStore(fieldMaze(), { max_moves: 2 }), [
      { calls: calls('move_south', 'move_south', 'move_south') },
    ]);
    expect(summary).toMatchObject({ stopReason: 'max_moves', actionsTaken: 2, actionsExecuted: 2, callsRefused: 1 });
    expect(write.actions[2].message).toBe('not executed: the turn ended (max_moves)');
  });

  it('before asking the agent anything when the game is already over (goal in view from the start)', async () => {
    const seen: Observation[] = [];
    const { summary, write } = await turn(
      memoryStore(fieldMaze({ x: 0, y: 3 })),
      [{ calls: calls('move_south') }],
      seen,
    );
    expect(seen).toHaveLength(0);
    expect(summary).toMatchObject({ stopReason: 'goal_found', actionsExecuted: 0, callsRefused: 0, goalFound: true });
    expect(write.actions).toEqual([]);
    expect(write.llmCalls).toEqual([]);
  });
});

describe('what the agent is shown', () => {
  it('its position, what it sees from there, the results of its last reply and the counters', async () => {
    const seen: Observation[] = [];
    await turn(
      memoryStore(fieldMaze(), { vision_range: 1 }),
      [{ calls: calls('move_east', 'move_east') }, { calls: [] }],
      seen,
    );
    expect(seen[0]).toMatchObject({ turnNumber: 1, position: { x: 0, y: 0 }, actionsTaken: 0, results: [] });
    // range 1 from (0,0): itself, south (0,1), east (1,0); north and west are off the grid
    expect(seen[0].visible).toEqual([
      [0, 0, 0],
      [0, 1, 0],
      [1, 0, 0],
    ]);
    expect(seen[0].tilesSeen).toBe(3);
    // the second move hit the wall at (2,0): the agent stays at (1,0)
    expect(seen[1]).toMatchObject({ position: { x: 1, y: 0 }, actionsTaken: 2, actionsLeftInTurn: 6 });
    expect(seen[1].results.map((r) => r.outcome)).toEqual(['moved', 'blocked_by_wall']);
    expect(seen[1].visible).toEqual([
      [1, 0, 0],
      [1, 1, 0],
      [2, 0, 1],
      [0, 0, 0],
    ]);
    expect(seen[1].tilesSeen).toBe(5); // (1,1) and the wall (2,0) are new
    expect(seen[1].known.cells[2]).toBe(1); // the wall is in the known map
    expect(seen[0].phase).toBe('exploring');
    expect(seen[0].agentState).toBeUndefined(); // only under the advise policy
  });

  it('under the advise policy, the agent state view as well', async () => {
    const seen: Observation[] = [];
    await turn(memoryStore(fieldMaze(), { stuck_policy: 'advise' }), [{ calls: [] }], seen);
    expect(seen[0].agentState).toMatchObject({ phase: 'exploring' });
  });

  it('a position the agent can change without moving it', async () => {
    const seen: Observation[] = [];
    const h = memoryStore(fieldMaze());
    const cheat: Agent = {
      act: (obs) => {
        seen.push(obs);
        obs.position.x = 7; // a careless agent writes into its observation
        return Promise.resolve({ calls: seen.length === 1 ? calls('move_south') : [] });
      },
    };
    const summary = await runTurn('e1', 1, { store: h.store, agents: () => cheat });
    expect(summary.position).toEqual({ x: 0, y: 1 });
  });
});

describe('what a turn logs', () => {
  it('one llm call per model reply: tokens, latency, stop reason, text and tool calls', async () => {
    const { write } = await turn(memoryStore(fieldMaze()), [
      {
        calls: [
          { name: 'move_south', arguments: { reasoning: 'down' }, parsedFromText: true },
          { name: 'move_east', arguments: undefined },
        ],
        text: 'going down',
        usage: { inputTokens: 100, outputTokens: 20 },
        latencyMs: 12.6,
        stopReason: 'tool_use',
        retries: [{ attempt: 1, error: '429' }],
      },
      { calls: [], text: 'done', usage: { inputTokens: 150, outputTokens: 5 }, latencyMs: 3 },
    ]);
    expect(write.llmCalls).toHaveLength(2);
    expect(write.llmCalls[0]).toEqual({
      callIndex: 0,
      firstActionIndex: 0,
      inputTokens: 100,
      outputTokens: 20,
      cacheReadInputTokens: null, // a provider without prompt caching reports none
      cacheWriteInputTokens: null,
      reportedReasoningTokens: null,
      latencyMs: 13,
      stopReason: 'tool_use',
      text: 'going down',
      toolCalls: [
        { name: 'move_south', arguments: { reasoning: 'down' }, parsedFromText: true },
        { name: 'move_east', arguments: null, parsedFromText: false },
      ],
      retries: [{ attempt: 1, error: '429' }],
      workflowSteps: null,
      context: null, // a scripted agent has no context guard and reports no timings
      timings: null,
    });
    expect(write.llmCalls[1]).toMatchObject({ callIndex: 1, firstActionIndex: null, stopReason: null, retries: [] });
    expect(write.totals).toEqual({
      llmCalls: 2,
      inputTokens: 250,
      outputTokens: 25,
      cacheReadInputTokens: null,
      cacheWriteInputTokens: null,
      costUsd: null, // no model, so no price
      latencyMs: 15.6,
    });
    // the reply's text goes with its first call only; reasoning and parsed_from_text per call
    expect(write.actions.map((a) => [a.assistantText, a.reasoning, a.parsedFromText])).toEqual([
      ['going down', 'down', true],
      [null, null, false],
    ]);
  });

  it('the first action index of a later reply is where its calls start in the turn', async () => {
    const { write } = await turn(memoryStore(fieldMaze()), [
      { calls: calls('move_south', 'move_south') },
      { calls: calls('move_east') },
    ]);
    expect(write.llmCalls.map((c) => c.firstActionIndex)).toEqual([0, 2, null]);
  });

  it('no llm calls and null tokens for an agent that calls no model', async () => {
    const { write } = await turn(memoryStore(fieldMaze()), [{ calls: calls('move_south') }], [], false);
    expect(write.llmCalls).toEqual([]);
    expect(write.totals).toEqual({
      llmCalls: 0,
      inputTokens: null,
      outputTokens: null,
      cacheReadInputTokens: null,
      cacheWriteInputTokens: null,
      costUsd: null,
      latencyMs: 0,
    });
  });

  it('the cost of the tokens at the model price, in USD per million tokens', async () => {
    const h = memoryStore(
      fieldMaze(),
      { prices: { 'm-1': { input_per_mtok: 3, output_per_mtok: 15 } } },
      { model: 'm-1' },
    );
    const { write } = await turn(h, [{ calls: [], text: 'hi', usage: { inputTokens: 2_000, outputTokens: 400 } }]);
    expect(write.totals.costUsd).toBeCloseTo((2_000 * 3 + 400 * 15) / 1e6, 12);
  });

  it('a workflow reply logs its steps with the call and its state moves as workflow transitions', async () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const h = memoryStore(fieldMaze());
    const steps = [{ name: 'plan', status: 'ran' }];
    const reply: AgentReply = {
      calls: calls('move_south'),
      workflow: { steps, moves: [{ from: 'observe', to: 'act', cause: 'condition', refused: false }] },
    };
    await runTurn('e1', 1, { store: h.store, agents: agentOf([reply]), now: () => at });
    const write = h.writes[0];
    expect(write.llmCalls[0].workflowSteps).toEqual(steps);
    expect(write.transitions.filter((t) => t.machine === 'workflow')).toEqual([
      { machine: 'workflow', from: 'observe', to: 'act', cause: 'condition', refused: false, step: 0, turn: 1, at },
    ]);
    expect(write).toMatchObject({ startedAt: at, endedAt: at, turnNumber: 1, experimentId: 'e1' });
  });

  it('the state after the turn, the turns completed and the agent memory', async () => {
    const h = memoryStore(fieldMaze());
    const agent: Agent = { act: () => Promise.resolve({ calls: [] }), memory: () => ({ plans: 2 }) };
    await runTurn('e1', 1, { store: h.store, agents: () => agent });
    expect(h.writes[0].stateAfter.turnsCompleted).toBe(1);
    expect(h.writes[0].agentMemoryAfter).toEqual({ plans: 2 });
    expect(h.writes[0].stuckPolicy).toBe('observe');
  });
});

describe('stuck detection in the turn', () => {
  const intoTheWall = () => calls('move_east', 'move_east', 'move_east', 'move_east', 'move_east');

  it('under observe, a repeated failed move is recorded as a signal and the turn goes on', async () => {
    const { summary, write } = await turn(memoryStore(fieldMaze()), [{ calls: intoTheWall() }]);
    // (0,0) -> (1,0), then four moves into the wall at (2,0): the third failure trips the detector
    expect(write.signals.map((s) => s.detector)).toEqual(['repeated_failed_move']);
    expect(write.signals[0].step).toBe(4);
    expect(summary).toMatchObject({ stopReason: 'empty_reply', actionsExecuted: 5, halt: null, phase: 'stuck' });
    expect(write.halt).toBeNull();
    // the one phase change of the turn, recorded once
    expect(write.transitions.map((t) => [t.from, t.to, t.step, t.cause])).toEqual([
      ['exploring', 'stuck', 4, 'repeated_failed_move'],
    ]);
    expect(summary.replayed).toBe(false);
  });

  it('under halt, the turn ends at the signal and the rest of the reply is refused', async () => {
    const { summary, write } = await turn(memoryStore(fieldMaze(), { stuck_policy: 'halt' }), [
      { calls: intoTheWall() },
    ]);
    expect(summary).toMatchObject({ stopReason: 'stuck', actionsExecuted: 4, callsRefused: 1 });
    expect(summary.halt).toMatchObject({ detector: 'repeated_failed_move', step: 4 });
    expect(write.halt).toEqual(summary.halt);
    expect(write.actions[4]).toMatchObject({
      outcome: 'refused_turn_over',
      message: 'not executed: the turn ended (stuck)',
    });
    expect(write.transitions.some((t) => t.to === 'stuck' && t.at instanceof Date)).toBe(true);
  });

  it('under halt, a turn with no tool call at the idle threshold ends stuck', async () => {
    const h = memoryStore(fieldMaze(), { stuck_policy: 'halt', stuck_thresholds: { idle_turns: 1 } });
    const { summary, write } = await turn(h, [{ calls: [], text: 'hmm' }]);
    expect(write.signals.map((s) => s.detector)).toEqual(['idle_turns']);
    expect(summary).toMatchObject({ stopReason: 'stuck', halt: { detector: 'idle_turns' } });
  });
});

describe('turn order and replays', () => {
  it('refuses a turn of a closed experiment and a turn out of order, writing nothing', async () => {
    const closed = memoryStore(fieldMaze(), {}, { status: 'completed' });
    await expect(runTurn('e1', 1, { store: closed.store, agents: agentOf([]) })).rejects.toMatchObject({
      name: 'ExperimentClosedError',
    });
    const open = memoryStore(fieldMaze());
    await expect(runTurn('e1', 2, { store: open.store, agents: agentOf([]) })).rejects.toMatchObject({
      name: 'TurnOutOfOrderError',
    });
    expect([...closed.writes, ...open.writes]).toEqual([]);
  });

  it('a lost commit race returns the winner, or says why there is none', async () => {
    const winner = { turnNumber: 1, replayed: true } as TurnSummary;
    const base = memoryStore(fieldMaze());
    const raced = (found: TurnSummary | null, status: ExperimentInfo['status'] = 'running'): EngineStore => ({
      loadTurnContext: async (id, opts) => {
        const ctx = await base.store.loadTurnContext(id, opts);
        // the first load sees a running experiment; the reload after the lost commit sees `status`
        return opts?.forTurn ? ctx : { ...ctx, experiment: { ...ctx.experiment, status } };
      },
      findTurn: () => Promise.resolve(found),
      commitTurn: () => Promise.resolve(false),
    });
    const run = (store: EngineStore) => runTurn('e1', 1, { store, agents: agentOf([{ calls: calls('move_south') }]) });
    await expect(run(raced(winner))).resolves.toBe(winner);
    await expect(run(raced(null, 'failed'))).rejects.toMatchObject({ name: 'ExperimentClosedError' });
    await expect(run(raced(null))).rejects.toMatchObject({ name: 'TurnOutOfOrderError' });
  });
});

describe('one call, as logged', () => {
  const maze = () => fieldMaze();
  const cfg = (over: ExperimentConfigInput = {}) => experimentConfigSchema.parse(over);
  const ctx = { callIndex: 0, assistantText: null };

  it('each outcome with its message; only moves and recalls succeed', () => {
    const m = maze();
    const config = cfg({ recall_interval: 2 });
    const state = initialState(m, config);
    const run = (name: string, args: unknown = {}) => executeCall(state, m, config, { name, arguments: args }, ctx);
    const log = [
      run('move_north'),
      run('move_south'),
      run('recall_all'),
      run('recall_all'),
      run('move_east'),
      run('recall_all'),
      run('recall_all', { all: true }),
      run('x'.repeat(100)),
    ];
    expect(log.map((r) => [r.outcome, r.success, r.message])).toEqual([
      ['blocked_by_edge', false, 'cannot move north: the edge of the maze'],
      ['moved', true, 'moved south to (0,1)'],
      ['recalled', true, `recalled ${log[2].recalled!.length} tiles seen in the last 50 actions`],
      ['recall_cooldown', false, 'recall refused: last recall was 1 actions ago; wait 1 more actions'],
      ['moved', true, 'moved east to (1,1)'],
      // two actions after the last recall: the cooldown of 2 is over
      ['recalled', true, `recalled ${log[5].recalled!.length} tiles seen in the last 50 actions`],
      ['invalid_arguments', false, 'recall_all takes no arguments'],
      [
        'unknown_tool',
        false,
        `unknown tool "${'x'.repeat(80)}"; the tools are move_north, move_south, move_east, move_west, recall_all`,
      ],
    ]);
  });

  it('recall lists each tile once, in row order, exactly the tiles seen in the window', () => {
    const m = maze();
    const config = cfg({ vision_range: 1 });
    const state = initialState(m, config); // at (0,0): sees (0,0) (1,0) (0,1)
    const moved = executeCall(state, m, config, { name: 'move_south', arguments: {} }, ctx); // (0,1): + (0,2) (1,1)
    expect(moved.vision).toEqual([
      [0, 1, 0],
      [0, 0, 0],
      [0, 2, 0],
      [1, 1, 0],
    ]);
    const r = executeCall(state, m, config, { name: 'recall_all', arguments: {} }, ctx);
    expect(r.recalled).toEqual([
      [0, 0, 0],
      [1, 0, 0],
      [0, 1, 0],
      [1, 1, 0],
      [0, 2, 0],
    ]);
  });

  it('a bad move argument names the argument; reasoning is kept only as a string', () => {
    const m = maze();
    const config = cfg();
    const state = initialState(m, config);
    const bad = executeCall(state, m, config, { name: 'move_east', arguments: { speed: 2 } }, ctx);
    expect(bad.message).toBe('move_east: arguments: Unrecognized key: "speed"');
    expect(bad.reasoning).toBeNull();
    const text = executeCall(state, m, config, { name: 'move_east', arguments: 'go east' }, ctx);
    expect([text.outcome, text.reasoning, text.arguments]).toEqual(['invalid_arguments', null, 'go east']);
    const none = executeCall(state, m, config, { name: 'move_east', arguments: undefined }, ctx);
    expect([none.outcome, none.arguments]).toEqual(['moved', null]);
  });

  it('a refused call keeps what the agent sent, takes no step, sees nothing and fails', () => {
    const m = maze();
    const state = initialState(m, cfg());
    const call = { name: 'move_south', arguments: { reasoning: 'r' }, parsedFromText: true };
    const r = refuseCall(state, call, { callIndex: 3, assistantText: 't' }, 'refused_action_limit', 'no');
    expect(r).toEqual({
      callIndex: 3,
      step: null,
      tool: 'move_south',
      arguments: { reasoning: 'r' },
      reasoning: 'r',
      assistantText: 't',
      parsedFromText: true,
      executed: false,
      success: false,
      outcome: 'refused_action_limit',
      message: 'no',
      from: { x: 0, y: 0 },
      to: { x: 0, y: 0 },
      vision: [],
      newTiles: 0,
      recalled: null,
      goalFound: false,
    });
    expect(refuseCall(state, { name: 'x', arguments: undefined }, ctx, 'refused_turn_over', '')).toMatchObject({
      arguments: null,
      parsedFromText: false,
    });
  });
});
