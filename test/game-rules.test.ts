import { describe, expect, it } from 'vitest';
import { Grid, buildMaze, type Maze } from '../core/maze/index.ts';
import { DEFAULT_CONFIG, type ExperimentConfig } from '../core/config/experiment-config.ts';
import { executeCall, initialState, type GameState } from '../core/engine/game.ts';

// x grows east, y grows south; S at (1,1).
//   0123456
// 0 .......
// 1 .S..#..
// 2 .......
// 3 .#.....
// 4 ......2
function testMaze(): Maze {
  const rows = [
    [0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 1, 0, 0],
    [0, 0, 0, 0, 0, 0, 0],
    [0, 1, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 2],
  ];
  return buildMaze(Grid.fromRows(rows), { x: 1, y: 1 }, 'test', null);
}

function play(calls: string[], config: Partial<ExperimentConfig> = {}, from?: { x: number; y: number }) {
  const maze = testMaze();
  const cfg = { ...DEFAULT_CONFIG, ...config };
  const state: GameState = initialState(maze, cfg);
  if (from) state.position = { ...from };
  const results = calls.map((name, i) =>
    executeCall(state, maze, cfg, { name, arguments: {} }, { callIndex: i, assistantText: null }),
  );
  return { state, results, maze };
}

describe('moves', () => {
  it('a move into a wall fails, is logged with its reason, and leaves the agent in place', () => {
    const { results, state } = play(['move_east', 'move_east', 'move_east']); // (2,1) (3,1) then the wall at (4,1)
    expect(results.map((r) => r.outcome)).toEqual(['moved', 'moved', 'blocked_by_wall']);
    expect(results[2]).toMatchObject({
      success: false,
      executed: true,
      from: { x: 3, y: 1 },
      to: { x: 3, y: 1 },
      step: 3,
    });
    expect(results[2].message).toMatch(/wall/);
    expect(state.position).toEqual({ x: 3, y: 1 });
    expect(state.actionsTaken).toBe(3);
  });

  it('a move off the grid fails and leaves the agent in place', () => {
    const { results, state } = play(['move_north', 'move_north']);
    expect(results.map((r) => r.outcome)).toEqual(['moved', 'blocked_by_edge']);
    expect(state.position).toEqual({ x: 1, y: 0 });
  });

  it('unknown tools and bad arguments are failed actions that take a step', () => {
    const maze = testMaze();
    const state = initialState(maze, DEFAULT_CONFIG);
    const a = executeCall(
      state,
      maze,
      DEFAULT_CONFIG,
      { name: 'teleport', arguments: {} },
      { callIndex: 0, assistantText: null },
    );
    const b = executeCall(
      state,
      maze,
      DEFAULT_CONFIG,
      { name: 'move_east', arguments: { reasoning: 5 } },
      { callIndex: 1, assistantText: null },
    );
    expect([a.outcome, b.outcome]).toEqual(['unknown_tool', 'invalid_arguments']);
    expect(b.message).toMatch(/reasoning/);
    expect(state.position).toEqual({ x: 1, y: 1 });
    expect(state.actionsTaken).toBe(2);
  });

  it('keeps the reasoning argument', () => {
    const maze = testMaze();
    const state = initialState(maze, DEFAULT_CONFIG);
    const r = executeCall(
      state,
      maze,
      DEFAULT_CONFIG,
      { name: 'move_south', arguments: { reasoning: 'open corridor' } },
      { callIndex: 0, assistantText: 'thinking' },
    );
    expect(r).toMatchObject({ reasoning: 'open corridor', assistantText: 'thinking', outcome: 'moved' });
  });
});

describe('vision', () => {
  const seen = (r: { vision: Array<[number, number, number]> }) => new Set(r.vision.map(([x, y]) => `${x},${y}`));

  it('rays stop at the first wall, which is itself seen', () => {
    const { results } = play(['move_east', 'move_east'], {}, undefined); // at (3,1): east ray hits the wall at (4,1)
    const v = seen(results[1]);
    expect(v.has('4,1')).toBe(true);
    expect(v.has('5,1')).toBe(false);
    expect(v.has('3,4')).toBe(true); // south ray: (3,2) (3,3) (3,4)
    expect(v.has('2,2')).toBe(false); // diagonals are not seen
  });

  it('range limits the rays', () => {
    const { results } = play(['move_south'], { vision_range: 1 }); // at (1,2)
    const v = seen(results[0]);
    expect([...v].sort()).toEqual(['0,2', '1,1', '1,2', '1,3', '2,2'].sort());
  });

  it('see-through mode shows the whole square, walls do not block', () => {
    const { results } = play(['move_east', 'move_east'], { see_through: true }); // at (3,1), range 3
    const v = seen(results[1]);
    expect(v.has('5,1')).toBe(true);
    expect(v.has('2,2')).toBe(true);
    expect(v.size).toBe(7 * 5); // x 0..6, y 0..4: the square clipped to the grid
  });
});

describe('recall', () => {
  it('is refused inside the cooldown, logged with how long to wait', () => {
    const { results } = play(['recall_all', 'move_south', 'recall_all'], { recall_interval: 10 });
    expect(results.map((r) => r.outcome)).toEqual(['recalled', 'moved', 'recall_cooldown']);
    expect(results[2]).toMatchObject({ success: false, executed: true });
    expect(results[2].message).toMatch(/wait 8 more actions/);
  });

  it('returns the tiles seen within the last max_recall_actions actions only', () => {
    // walk east along row 2 from (1,2); with a window of 2 actions the start view falls out
    const { results } = play(['move_south', 'move_east', 'move_east', 'move_east', 'recall_all'], {
      max_recall_actions: 2,
      recall_interval: 0,
    });
    const recalled = new Set(results[4].recalled!.map(([x, y]) => `${x},${y}`));
    expect(recalled.has('6,2')).toBe(true); // seen from (3,2) and (4,2)
    expect(recalled.has('1,0')).toBe(false); // seen only from the start, outside the window
  });
});

describe('success rules', () => {
  it('seen: the goal in view ends the game', () => {
    // not a real move: check from a cell seeing (6,4)
    const { results, state } = play(['move_east'], {}, { x: 6, y: 0 });
    expect(results[0].outcome).toBe('blocked_by_edge');
    expect(state.goalFound).toBe(false); // (6,0) sees (6,3) at most with range 3
    const again = play(['move_south'], {}, { x: 6, y: 0 }); // at (6,1): (6,4) is 3 away
    expect(again.state.goalFound).toBe(true);
    expect(again.results[0].goalFound).toBe(true);
  });

  it('reached: only standing on the goal counts', () => {
    const seenOnly = play(['move_south'], { success_rule: 'reached' }, { x: 6, y: 0 });
    expect(seenOnly.state.goalFound).toBe(false);
    const reached = play(
      ['move_south', 'move_south', 'move_south', 'move_south'],
      { success_rule: 'reached' },
      { x: 6, y: 0 },
    );
    expect(reached.results.map((r) => r.goalFound)).toEqual([false, false, false, true]);
  });
});
