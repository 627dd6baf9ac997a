// The experiment lifecycle's rules outside the turn: when a run stops (and
// why, in which order the stop rules apply), the optimum it is scored against,
// stable ids for retried starts, and what startExperiment writes.
import { describe, expect, it } from 'vitest';
import {
  checkProgress,
  experimentIdFor,
  optimalMoves,
  resolveConfig,
  startExperiment,
  systemPrompt,
  type StartStore,
} from '../core/engine/experiment.ts';
import { Grid, buildMaze } from '../core/maze/index.ts';
import { UNKNOWN } from '../core/engine/game.ts';
import { estimatedHistoryEvents, HISTORY_EVENT_QUOTA, HISTORY_RESERVE_EVENTS } from '../core/config/budgets.ts';

const t0 = new Date('2026-01-01T00:00:00Z');
const running = {
  goalFound: false,
  halt: null,
  actionsTaken: 10,
  startedAt: t0,
  maxMoves: 100,
  maxDurationMinutes: 60,
  turnNumber: 5,
  maxTurns: 50,
  executionStartTurn: 1,
  turnsPerExecution: 1000,
};
const minutes = (m: number) => new Date(t0.getTime() + m * 60_000);

describe('between turns', () => {
  it('continues while no limit is reached', () => {
    expect(checkProgress(running, minutes(1))).toEqual({ decision: 'continue', reason: 'running' });
  });

  it('stops at the goal, before any other rule', () => {
    const p = { ...running, goalFound: true, actionsTaken: 100, turnNumber: 50 };
    expect(checkProgress(p, minutes(61))).toEqual({ decision: 'success', reason: 'goal_found' });
  });

  it('stops stuck at a halting signal, naming the detector and what it saw', () => {
    const halt = { detector: 'oscillation' as const, detail: 'back and forth', step: 9 };
    expect(checkProgress({ ...running, halt, actionsTaken: 100 }, minutes(1))).toEqual({
      decision: 'stuck',
      reason: 'oscillation',
      detail: 'back and forth',
    });
  });

  it('times out at max_moves (reached, not only passed), then at max_duration, then at max_turns', () => {
    expect(checkProgress({ ...running, actionsTaken: 99 }, minutes(1)).decision).toBe('continue');
    expect(checkProgress({ ...running, actionsTaken: 100 }, minutes(61))).toEqual({
      decision: 'timeout',
      reason: 'max_moves',
    });
    expect(checkProgress(running, new Date(minutes(60).getTime() - 1)).decision).toBe('continue');
    expect(checkProgress({ ...running, turnNumber: 50 }, minutes(60))).toEqual({
      decision: 'timeout',
      reason: 'max_duration',
    });
    expect(checkProgress({ ...running, turnNumber: 49 }, minutes(1)).decision).toBe('continue');
    expect(checkProgress({ ...running, turnNumber: 50 }, minutes(1))).toEqual({
      decision: 'timeout',
      reason: 'max_turns',
    });
  });

  it('hands over to a fresh execution after turnsPerExecution turns of this one', () => {
    const p = { ...running, executionStartTurn: 11, turnsPerExecution: 10 };
    expect(checkProgress({ ...p, turnNumber: 19 }, minutes(1)).decision).toBe('continue');
    expect(checkProgress({ ...p, turnNumber: 20 }, minutes(1))).toEqual({
      decision: 'continue_as_new',
      reason: 'history_budget',
    });
  });
});

describe('continue as new: turn count, history size or execution time, whichever first', () => {
  const fresh = { ...running, executionStartTurn: 1, turnNumber: 1, maxTurns: 1_000_000, maxMoves: 1_000_000 };

  it('hands over when the next turn would bring the estimated history near the 25,000-event quota', () => {
    // a loop state may carry any turnsPerExecution (a resume input, an old snapshot): the quota holds regardless
    const p = { ...fresh, turnsPerExecution: 1_000_000 };
    const first = [...Array(HISTORY_EVENT_QUOTA).keys()]
      .map((i) => i + 1)
      .find((turn) => checkProgress({ ...p, turnNumber: turn }, minutes(1)).decision !== 'continue');
    expect(first).toBeDefined();
    expect(checkProgress({ ...p, turnNumber: first! }, minutes(1))).toEqual({
      decision: 'continue_as_new',
      reason: 'history_quota',
    });
    // it hops at the last turn that leaves the reserve free, not earlier
    expect(estimatedHistoryEvents(first!) + HISTORY_RESERVE_EVENTS).toBeLessThanOrEqual(HISTORY_EVENT_QUOTA);
    expect(estimatedHistoryEvents(first! + 1) + HISTORY_RESERVE_EVENTS).toBeGreaterThan(HISTORY_EVENT_QUOTA);
    // counted from this execution's first turn: a continuation starts afresh
    expect(checkProgress({ ...p, turnNumber: first! + 100, executionStartTurn: 101 }, minutes(1)).decision).toBe(
      'continue_as_new',
    );
    expect(checkProgress({ ...p, turnNumber: first! + 100, executionStartTurn: 102 }, minutes(1)).decision).toBe(
      'continue',
    );
  });

  it('hands over when one more turn might not end before the execution times out', () => {
    const execution = { startTime: minutes(30), timeoutSeconds: 3600, turnReserveSeconds: 600 };
    // the experiment may run far longer than one execution: it continues, it does not time out
    const p = { ...fresh, maxDurationMinutes: 10_000, execution };
    const at = (m: number, ms = 0) => new Date(minutes(m).getTime() + ms);
    expect(checkProgress(p, at(30 + 50, -1))).toEqual({ decision: 'continue', reason: 'running' });
    expect(checkProgress(p, at(30 + 50))).toEqual({ decision: 'continue_as_new', reason: 'execution_time' });
    // without the clock (input from a machine version before it was passed) only the other triggers apply
    expect(checkProgress({ ...p, execution: undefined }, at(30 + 59)).decision).toBe('continue');
  });

  it('the turn count comes first when it is reached first; an experiment that ends anyway just ends', () => {
    const execution = { startTime: t0, timeoutSeconds: 3600, turnReserveSeconds: 600 };
    const p = { ...fresh, turnsPerExecution: 3, turnNumber: 3, maxDurationMinutes: 10_000, execution };
    expect(checkProgress(p, minutes(55)).reason).toBe('history_budget');
    expect(checkProgress({ ...p, turnNumber: 2 }, minutes(55)).reason).toBe('execution_time');
    expect(checkProgress({ ...p, goalFound: true }, minutes(55))).toEqual({
      decision: 'success',
      reason: 'goal_found',
    });
    expect(checkProgress({ ...p, maxTurns: 3 }, minutes(55))).toEqual({ decision: 'timeout', reason: 'max_turns' });
  });
});

describe('the optimum', () => {
  // a corridor along row 0 to the goal at (6,0), start (0,0): 6 moves to reach it
  const rows = [
    [0, 0, 0, 0, 0, 0, 2],
    [1, 1, 1, 1, 1, 1, 1],
  ];
  const maze = buildMaze(Grid.fromRows(rows), { x: 0, y: 0 }, 'test', null);

  it('is the shortest path under the reached rule, the path to sight under the seen rule, for its vision', () => {
    expect(optimalMoves(maze, resolveConfig({ success_rule: 'reached' }))).toBe(6);
    expect(optimalMoves(maze, resolveConfig({}))).toBe(3); // range 3: (3,0) sees (6,0)
    expect(maze.shortestPathToSight).toBe(3);
    expect(optimalMoves(maze, resolveConfig({ vision_range: 1 }))).toBe(5);
    expect(optimalMoves(maze, resolveConfig({ vision_range: 5 }))).toBe(1);
    expect(optimalMoves(maze, resolveConfig({ see_through: true, vision_range: 2 }))).toBe(4);
  });
});

describe('experiment ids', () => {
  it('one execution always gets the same UUID-shaped id; another execution another', () => {
    const a = experimentIdFor('arn:aws:states:us-east-1:1:execution:m:one');
    expect(experimentIdFor('arn:aws:states:us-east-1:1:execution:m:one')).toBe(a);
    expect(experimentIdFor('arn:aws:states:us-east-1:1:execution:m:two')).not.toBe(a);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('starting an experiment', () => {
  function recordingStore() {
    const created: Array<Parameters<StartStore['createExperiment']>[0]> = [];
    const store: StartStore = {
      saveMaze: () => Promise.resolve(7),
      createExperiment: (e) => {
        created.push(e);
        return Promise.resolve({ created: true, startedAt: t0, config: e.config });
      },
    };
    return { store, created };
  }
  const inline = {
    kind: 'inline' as const,
    grid: [
      [0, 0, 0, 0, 0, 0, 2],
      [0, 0, 0, 0, 0, 0, 0],
    ],
    start: { x: 0, y: 0 },
  };

  it('writes the resolved config, the optimum, the initial state and no prompt for a baseline', async () => {
    const { store, created } = recordingStore();
    const started = await startExperiment(
      { agent: 'random', provider: 'baseline', executionArn: 'arn:x', maze: inline, config: { vision_range: 2 } },
      store,
      { config: { vision_range: 4, max_moves: 77 }, prompts: {} },
    );
    expect(started).toMatchObject({ experimentId: experimentIdFor('arn:x'), created: true, mazeId: 7 });
    expect(started.optimalMoves).toBe(4); // range 2 (the request wins over the defaults): (4,0) sees (6,0)
    const e = created[0];
    expect(e).toMatchObject({ id: experimentIdFor('arn:x'), executionArn: 'arn:x', mazeId: 7, optimalMoves: 4 });
    expect([e.config.vision_range, e.config.max_moves]).toEqual([2, 77]);
    expect([e.promptText, e.promptHash, e.promptVersion, e.model]).toEqual([null, null, null, null]);
    expect(e.initialState.actionsTaken).toBe(0);
    expect(e.initialState.known[0]).not.toBe(UNKNOWN); // the start is seen
    expect(e.initialState.tilesSeen).toBe(4); // (0,0), (1,0), (2,0), (0,1)
    expect(Number.isInteger(e.agentSeed)).toBe(true);
  });

  it('under the reached rule the prompt says so', () => {
    const maze = buildMaze(Grid.fromRows(inline.grid), inline.start, 'x', null);
    expect(systemPrompt(maze, resolveConfig({ success_rule: 'reached' }))).toContain(
      'The experiment ends when you stand on the goal tile; seeing it is not enough.',
    );
    expect(systemPrompt(maze, resolveConfig({ success_rule: 'reached', prompt_version: 'v1' }))).toContain(
      'The experiment ends when you stand on the goal tile.',
    );
  });

  it('renders the system prompt of an LLM agent with the maze and limits, and stores its sha256', async () => {
    const { store, created } = recordingStore();
    await startExperiment(
      { agent: 'ollama', provider: 'ollama', model: 'm', agentSeed: 3, maze: inline, config: {} },
      store,
    );
    const e = created[0];
    expect(e.promptText).toContain('a 2-D grid maze of 7x2 tiles');
    expect(e.promptText).toContain('You start at (0,0).');
    // v2, the default: the rays format's four lines, walls blocking the view
    expect(e.promptText).toContain('for each of the four directions (north, south, east, west), the tiles in a');
    expect(e.promptText).toContain('up to 3 tiles: a wall blocks your view');
    expect(e.promptText).toContain(
      'up to 8 actions per turn. The experiment ends as soon as the goal is in sight, in an observation or a tool',
    );
    expect(e.promptHash).toMatch(/^[0-9a-f]{64}$/);
    expect([e.promptVersion, e.agentSeed, e.model]).toEqual(['v2', 3, 'm']);
  });
});

describe('limits that bound each other', () => {
  it('max_turns left out is derived so max_moves can be reached, and never below 5,000', () => {
    expect(resolveConfig({}).max_turns).toBe(5_000);
    expect(resolveConfig({ max_moves: 100_000 }).max_turns).toBe(12_500);
    expect(resolveConfig({ max_moves: 100_001 }).max_turns).toBe(12_501);
    expect(resolveConfig({ max_moves: 100_000, max_actions_per_turn: 4 }).max_turns).toBe(25_000);
    expect(resolveConfig({ max_moves: 100_000 }).max_moves).toBe(100_000);
    expect(resolveConfig({}).max_moves).toBe(10_000);
  });

  it("max_turns given alone is the user's stop, even below what the default max_moves needs", () => {
    expect(resolveConfig({ max_turns: 1 })).toMatchObject({ max_turns: 1, max_moves: 10_000 });
  });

  it('both given, a max_moves that cannot be reached is refused naming both and the fix', () => {
    expect(() => resolveConfig({ max_moves: 100_000, max_turns: 5_000 })).toThrow(
      /config\.max_moves: 100000 can never be reached: max_turns 5000 x max_actions_per_turn 8 allow at most 40000/,
    );
    expect(resolveConfig({ max_moves: 40_000, max_turns: 5_000 }).max_moves).toBe(40_000);
  });

  it('vision_range 0 is refused: the agent would see nothing', () => {
    expect(() => resolveConfig({ vision_range: 0 })).toThrow(/config\.vision_range: must be at least 1/);
  });
});

describe('a used experiment id', () => {
  const maze = { kind: 'generated' as const, spec: { generator: 'medium', width: 11, height: 11, seed: 1 } };
  /** A store where the id exists, started with `before`. */
  async function startTwice(before: { vision_range: number }, after: { vision_range: number }) {
    let first: Parameters<StartStore['createExperiment']>[0] | undefined;
    const store: StartStore = {
      saveMaze: () => Promise.resolve(3),
      createExperiment: (e) => {
        if (!first) {
          first = e;
          return Promise.resolve({ created: true, startedAt: t0, config: e.config });
        }
        return Promise.resolve({ created: false, startedAt: t0, config: first.config, existing: first });
      },
    };
    const req = { agent: 'frontier', provider: 'baseline' as const, experimentId: 'demo-1', maze };
    await startExperiment({ ...req, config: before }, store);
    return startExperiment({ ...req, config: after }, store);
  }

  it('with the same settings is a retry: it carries on', async () => {
    expect(await startTwice({ vision_range: 3 }, { vision_range: 3 })).toMatchObject({ created: false });
  });

  it('with other settings is refused naming what differs', async () => {
    await expect(startTwice({ vision_range: 3 }, { vision_range: 4 })).rejects.toThrow(
      /experiment id "demo-1" is taken by an experiment with another config; choose another id/,
    );
  });
});
