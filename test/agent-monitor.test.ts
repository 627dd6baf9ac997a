// The agent monitor (phases and stuck detectors), fed the real game's
// actions. Not yet wired into the turn engine.
import { describe, expect, it } from 'vitest';
import { AgentMonitor, DEFAULT_THRESHOLDS, TRANSITIONS } from '../core/engine/agent-monitor.ts';
import { executeCall, initialState, type GameState } from '../core/engine/game.ts';
import { DEFAULT_CONFIG } from '../core/config/experiment-config.ts';
import { Grid, buildMaze, generateMaze, type Maze } from '../core/maze/index.ts';
import { nextFrontierMove } from '../core/providers/frontier-agent.ts';
import { frontierSearch } from '../core/engine/frontier.ts';

function game(maze: Maze) {
  const config = { ...DEFAULT_CONFIG };
  const state: GameState = initialState(maze, config);
  const monitor = new AgentMonitor();
  let i = 0;
  const act = (name: string) => {
    const r = executeCall(state, maze, config, { name, arguments: {} }, { callIndex: i++, assistantText: null });
    const distance = (below?: number) =>
      frontierSearch({ width: maze.width, height: maze.height, cells: state.known }, state.position, below)?.distance ??
      null;
    return monitor.observe(r, 1 + Math.floor((r.step! - 1) / 8), distance);
  };
  return { state, monitor, act };
}

// 9x9 open field with walls around (2,1): start (1,1); goal far away in the corner.
function field(): Maze {
  const rows = Array.from({ length: 9 }, () => Array(9).fill(0));
  rows[1][2] = 1;
  rows[8][8] = 2;
  return buildMaze(Grid.fromRows(rows), { x: 1, y: 1 }, 'test', null);
}

describe('stuck detectors', () => {
  it('three identical failed moves into a wall are detected at the third', () => {
    const { act, monitor } = game(field());
    expect(act('move_east').signals).toEqual([]);
    expect(act('move_east').signals).toEqual([]);
    const third = act('move_east');
    expect(third.signals).toMatchObject([{ detector: 'repeated_failed_move', step: 3 }]);
    expect(third.signals[0].detail).toMatch(/move_east failed 3 times in a row at \(1,1\)/);
    expect(monitor.phase).toBe('stuck');
    expect(act('move_east').signals).toEqual([]); // raised once per streak
  });

  it('A-B-A-B oscillation is detected', () => {
    const { act } = game(field());
    act('move_south'); // (1,2): sees new tiles
    const out = [act('move_north'), act('move_south'), act('move_north')];
    const signals = out.flatMap((o) => o.signals);
    expect(signals.map((s) => s.detector)).toContain('oscillation');
    expect(signals.find((s) => s.detector === 'oscillation')!.detail).toMatch(/between \(1,\d\) and \(1,\d\)/);
  });

  it('stepping back and forth towards a frontier and away is still an oscillation', () => {
    // a corridor (x = 1..7, y = 1) seen whole from the start; the unexplored end is east
    const rows: number[][] = Array.from({ length: 3 }, (_, y) =>
      Array.from({ length: 12 }, (_, x) => (y === 1 && x < 11 ? 0 : 1)),
    );
    rows[1][10] = 2;
    const maze = buildMaze(Grid.fromRows(rows), { x: 1, y: 1 }, 'test', null);
    const { act } = game(maze);
    act('move_east');
    act('move_east');
    act('move_east'); // (4,1): everything up to (7,1) seen
    const signals = ['move_west', 'move_east', 'move_west', 'move_east', 'move_west'].flatMap((m) => act(m).signals);
    expect(signals.map((s) => s.detector)).toContain('oscillation');
  });

  it('20 actions without a new tile are detected at the 20th', () => {
    const { act } = game(field());
    let at: number | null = null;
    for (let k = 1; k <= 25 && at === null; k++) {
      const { signals } = act('recall_all'); // refused recalls see nothing new
      if (signals.some((s) => s.detector === 'no_new_tiles')) at = k;
    }
    expect(at).toBe(DEFAULT_THRESHOLDS.no_new_tile_actions);
  });

  it('recall spam and idle turns are detected', () => {
    const { act, monitor } = game(field());
    const first = [act('recall_all'), act('recall_all'), act('recall_all')].flatMap((o) => o.signals);
    expect(first.map((s) => s.detector)).toContain('recall_spam');
    const idle = [monitor.endTurn(1, 0, 3), monitor.endTurn(2, 0, 3), monitor.endTurn(3, 0, 3)].flat();
    expect(idle).toMatchObject([{ detector: 'idle_turns', turn: 3 }]);
  });

  it.each([
    ['medium', 101],
    ['rooms_and_corridors', 101],
    ['open_field', 101],
    ['perfect', 101],
  ])('a productive frontier run (%s %i, up to 3,000 actions) raises no stuck signal', (generator, size) => {
    const maze = generateMaze({ generator, width: size, height: size, seed: 1 });
    const { state, act, monitor } = game(maze);
    let steps = 0;
    for (; steps < 3_000; steps++) {
      const dir = nextFrontierMove({ width: maze.width, height: maze.height, cells: state.known }, state.position);
      if (dir === null) break;
      act(`move_${dir}`);
    }
    expect(steps).toBeGreaterThan(500);
    expect(monitor.signals).toEqual([]);
  });
});

describe('phases', () => {
  it('records every transition in order with its step and cause; finishing is terminal', () => {
    const { act, monitor } = game(field());
    act('move_south'); // new tiles: stays exploring
    act('move_north'); // known ground: backtracking
    act('recall_all'); // recalling
    act('move_east'); // blocked: no change
    expect(monitor.transitions.map((t) => [t.from, t.to, t.step])).toEqual([
      ['exploring', 'backtracking', 2],
      ['backtracking', 'recalling', 3],
    ]);
    expect(monitor.request('finishing', 5, 1, 'test')).toBe(true);
    expect(monitor.request('exploring', 6, 1, 'workflow asked')).toBe(false);
    expect(monitor.transitions.at(-1)).toMatchObject({
      from: 'finishing',
      to: 'exploring',
      refused: true,
      cause: 'workflow asked',
    });
    expect(monitor.phase).toBe('finishing');
  });

  it('the table allows no self-transitions and leaves finishing terminal', () => {
    for (const [from, tos] of Object.entries(TRANSITIONS)) expect(tos).not.toContain(from);
    expect(TRANSITIONS.finishing).toEqual([]);
  });
});
