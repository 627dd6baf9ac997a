// The behaviour analytics (reports/behaviour.ts, frontier-baseline.ts, behaviour-statistics.ts) on mazes and paths
// drawn by hand: every expected value is counted by hand in the comments beside it, never by the code under test.
import { describe, expect, it } from 'vitest';
import { parseMazeText } from '../core/maze/maze-text.ts';
import { packAction, type ActionKind, type RunTrace } from '../results/run-moves.ts';
import { LOOP_ENTRIES, oscillationsOf, runBehaviour, type RunBehaviour } from '../reports/behaviour.ts';
import { behaviourStatistics } from '../reports/behaviour-statistics.ts';
import { clusterShare, mazeRate } from '../reports/maze-inference.ts';
import { frontierWalk, type FrontierWalk } from '../reports/frontier-baseline.ts';

// x = 0123456
//   y0 #######
//   y1 S.....#     S (0,1) on the west edge: a dead end (its only open neighbour is (1,1))
//   y2 #.###.#
//   y3 #.#G..#     (1,3) and the goal (3,3) are dead ends too; 12 open cells, all reachable
//   y4 #######
const MAZE = parseMazeText(['#######', 'S.....#', '#.###.#', '#.#G..#', '#######'].join('\n'));

/** A trace from [kind, x, y, new tiles] per step: the cell is where the action left the agent. */
const trace = (steps: Array<[ActionKind, number, number, number]>): RunTrace => ({
  codes: steps.map(([kind, x, y]) => packAction(kind, x, y)),
  tiles: steps.map(([, , , tiles]) => tiles),
});

/** A frontier walk given by hand (its own test is below): tiles after each step, goal at its last. */
const FRONTIER: FrontierWalk = { goalStep: 9, tilesByStep: Uint32Array.from([3, 4, 6, 7, 8, 9, 10, 11, 12, 13]) };

// A run that pokes at the dead end (1,3) and walks back to the start, then ends without the goal:
const POKING = trace([
  ['blocked_by_edge', 0, 1, 0], //  1 west from the start: off the edge
  ['moved', 1, 1, 2], //            2 east, a new cell
  ['moved', 1, 2, 1], //            3 south, a new cell
  ['moved', 1, 3, 0], //            4 south into the dead end, a new cell
  ['blocked_by_wall', 1, 3, 0], //  5 west: a wall
  ['moved', 1, 2, 0], //            6 north: revisit
  ['moved', 1, 3, 0], //            7 south: revisit, dead end re-entered (1)
  ['moved', 1, 2, 0], //            8 revisit
  ['moved', 1, 3, 0], //            9 revisit, dead end re-entered (2)
  ['moved', 1, 2, 1], //           10 revisit, but a new tile: progress
  ['other', 1, 2, 0], //           11 recall_all
  ['moved', 1, 1, 0], //           12 revisit
  ['moved', 0, 1, 0], //           13 into the start: revisit, dead end re-entered (3)
  ['moved', 1, 1, 0], //           14 revisit
]);

describe('one run on a hand-drawn maze', () => {
  const b = runBehaviour({ maze: MAZE, trace: POKING, goalFound: false, ended: true, frontier: FRONTIER });

  it('counts steps, moves and bumps against walls and the edge', () => {
    expect(b.steps).toBe(14);
    expect(b.moves).toBe(11); // steps 2-4, 6-10, 12-14
    expect(b.wallBumps).toBe(2); // steps 1 (the edge) and 5 (a wall)
    expect(b.edgeBumps).toBe(1);
    expect(b.wallBumpsPer100).toBeCloseTo(200 / 13, 10); // 2 of 13 move attempts (11 taken + 2 refused)
  });

  it('counts revisits, dead-end re-entries and no loop below 10 entries', () => {
    expect(b.revisits).toBe(8); // steps 6-10 and 12-14
    expect(b.revisitRatio).toBeCloseTo(8 / 11, 10);
    expect(b.deadEndReentries).toBe(3); // steps 7, 9 into (1,3) and 13 into the start (0,1)
    // entries: (1,1) at 2, 12, 14; (1,2) at 3, 6, 8, 10; (1,3) at 4, 7, 9; (0,1) at 13
    expect(b.mostEntries).toBe(4);
    expect(b.loopCells).toBe(0);
    expect(b.looped).toBe(false);
  });

  it('finds the back-and-forth in the dead end as one oscillation of 6 moves', () => {
    // cells stood in: (0,1) (1,1) [(1,2) (1,3) (1,2) (1,3) (1,2) (1,3) (1,2)] (1,1) (0,1) (1,1): the bracket is
    // A-B-A-B-A-B-A, 6 moves; (1,1) (0,1) (1,1) at the end is A-B-A, a dead end walked out of, not one
    expect([b.oscillations, b.oscillationMoves]).toEqual([1, 6]);
  });

  it('gives coverage by step: cells visited and tiles seen', () => {
    expect(b.cellsVisited).toBe(4); // (0,1) (1,1) (1,2) (1,3)
    expect(b.reachableCells).toBe(12);
    expect(b.tilesSeen).toBe(7); // 3 at the start (the frontier's step 0) + 2 + 1 + 1
    // 14 steps: every step is one of the 1% points
    expect(b.coverage.steps).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
    expect(b.coverage.cells).toEqual([1, 1, 2, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]);
    expect(b.coverage.tiles).toEqual([3, 3, 5, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7]);
  });

  it('says where progress stopped: the last new tile or cell, and the steps after it', () => {
    // step 4 entered the last new cell, step 10 saw the last new tile: progress stopped at 10, in (1,2)
    expect(b.progress).toEqual({ lastStep: 10, x: 1, y: 2, stepsAfter: 4 });
  });

  it('compares its tiles with the frontier at the last step both have', () => {
    // the frontier's walk is 9 steps, the run's 14: at step 9 the run had 6 tiles, the frontier 13
    expect(b.frontier).toEqual({ goalStep: 9, atStep: 9, tiles: 13, runTiles: 6 });
    expect(b.explorationEfficiency).toBeCloseTo(6 / 13, 10);
    expect(b.stepsVsFrontier).toBeNull(); // the run did not find the goal
  });

  it('has no progress stop for a run that found the goal or is still running', () => {
    const found = runBehaviour({ maze: MAZE, trace: POKING, goalFound: true, ended: true, frontier: FRONTIER });
    expect(found.progress).toBeNull();
    expect(found.stepsVsFrontier).toBeCloseTo(9 / 14, 10); // the frontier's 9 steps to the goal over the run's 14
    const running = runBehaviour({ maze: MAZE, trace: POKING, goalFound: false, ended: false, frontier: FRONTIER });
    expect(running.progress).toBeNull();
  });

  it("counts the frontier's goal only by the run's last step for a run that did not find it", () => {
    // a frontier that finds the goal at step 20, after this run's 14 steps: for this failed run it had not
    const later: FrontierWalk = { goalStep: 20, tilesByStep: Uint32Array.from({ length: 21 }, (_, s) => 3 + s) };
    const failed = runBehaviour({ maze: MAZE, trace: POKING, goalFound: false, ended: true, frontier: later });
    expect(failed.frontier).toEqual({ goalStep: null, atStep: 14, tiles: 17, runTiles: 7 });
    // had the run found the goal, the frontier's 20 steps count: the run took 14
    const found = runBehaviour({ maze: MAZE, trace: POKING, goalFound: true, ended: true, frontier: later });
    expect([found.frontier.goalStep, found.stepsVsFrontier]).toEqual([20, 20 / 14]);
  });

  it('reads an empty run: nothing counted, no ratio, progress stopped at step 0 at the start', () => {
    const none = runBehaviour({
      maze: MAZE,
      trace: { codes: [], tiles: [] },
      goalFound: false,
      ended: true,
      frontier: FRONTIER,
    });
    expect([none.steps, none.moves, none.wallBumps, none.revisits, none.cellsVisited]).toEqual([0, 0, 0, 0, 1]);
    expect([none.wallBumpsPer100, none.revisitRatio, none.explorationEfficiency]).toEqual([null, null, null]);
    expect(none.progress).toEqual({ lastStep: 0, x: 0, y: 1, stepsAfter: 0 });
    expect(none.coverage).toEqual({ steps: [0], cells: [1], tiles: [3] });
  });
});

describe("MazeEval's loop: a cell entered 10 or more times", () => {
  // east to (1,1), south to (1,2), then 18 moves between (1,2) and (1,3): (1,2) is entered 1 + 9 = 10 times,
  // (1,3) 9 times
  const steps: Array<[ActionKind, number, number, number]> = [
    ['moved', 1, 1, 1],
    ['moved', 1, 2, 1],
  ];
  for (let k = 0; k < 18; k++) steps.push(['moved', 1, k % 2 === 0 ? 3 : 2, 0]);
  const b = runBehaviour({ maze: MAZE, trace: trace(steps), goalFound: false, ended: true, frontier: FRONTIER });

  it('counts the cell entered 10 times and not the one entered 9', () => {
    expect(LOOP_ENTRIES).toBe(10);
    expect([b.loopCells, b.looped, b.mostEntries]).toEqual([1, true, 10]);
  });

  it('counts the rest of that run by hand too', () => {
    expect(b.moves).toBe(20);
    expect(b.revisits).toBe(17); // 20 moves, 3 of them into new cells: (1,1), (1,2), (1,3)
    expect(b.deadEndReentries).toBe(8); // (1,3) entered 9 times, the first new
    // cells (0,1) (1,1) then (1,2) (1,3) (1,2) ... (1,2): p[k + 2] = p[k] for k = 2..18, one stretch of 18 moves
    expect([b.oscillations, b.oscillationMoves]).toEqual([1, 18]);
    // 20 steps: the 1% points are each step; progress stopped at step 3, the last new cell (1,3)
    expect(b.coverage.steps).toHaveLength(21);
    expect(b.progress).toEqual({ lastStep: 3, x: 1, y: 3, stepsAfter: 17 });
  });
});

describe('oscillations', () => {
  it('needs 3 moves between two cells, and two stretches share no move', () => {
    expect(oscillationsOf([1, 2, 1])).toEqual({ oscillations: 0, moves: 0 }); // A-B-A
    expect(oscillationsOf([1, 2, 1, 2])).toEqual({ oscillations: 1, moves: 3 }); // A-B-A-B
    // A-B-A-B then B-C-B-C-B: k = 0, 1 hold, k = 2 breaks (C is not A), k = 3, 4, 5 hold
    expect(oscillationsOf([1, 2, 1, 2, 3, 2, 3, 2])).toEqual({ oscillations: 2, moves: 7 });
    expect(oscillationsOf([1, 2, 3, 4, 5])).toEqual({ oscillations: 0, moves: 0 });
    expect(oscillationsOf([1])).toEqual({ oscillations: 0, moves: 0 });
  });
});

describe('the frontier baseline walked by hand', () => {
  // vision 1, rays, the goal to be reached. From S (0,1) the frontier walks (nearest unexplored first, ties north,
  // south, east, west): E to (1,1); S (1,2); S (1,3), a dead end; N, N back to (1,1); E (2,1), E (3,1), E (4,1),
  // E (5,1); S (5,2), S (5,3); W (4,3), where the goal comes into view; W onto the goal (3,3): 13 steps.
  // Tiles seen: 4 from the start (itself, the walls north and south, (1,1)), then per step 3, 2, 3, 0, 0, 2, 3, 3,
  // 3, 2, 3, 2, 1.
  const TILES = [4, 7, 9, 12, 12, 12, 14, 17, 20, 23, 25, 28, 30, 31];
  const rules = { visionRange: 1, seeThrough: false, successRule: 'reached' };

  it('finds the goal at step 13 having seen the tiles counted above', () => {
    const w = frontierWalk(MAZE, rules);
    expect(w.goalStep).toBe(13);
    expect(Array.from(w.tilesByStep)).toEqual(TILES);
  });

  it('stops at the steps asked for, the goal not yet found', () => {
    const w = frontierWalk(MAZE, rules, 5);
    expect(w.goalStep).toBeNull();
    expect(Array.from(w.tilesByStep)).toEqual(TILES.slice(0, 6));
  });

  it('stops a step earlier under the seen rule: the goal is in view from (4,3)', () => {
    const w = frontierWalk(MAZE, { ...rules, successRule: 'seen' });
    expect(w.goalStep).toBe(12);
    expect(Array.from(w.tilesByStep)).toEqual(TILES.slice(0, 13));
  });

  it('scores its own walk as 1 against itself', () => {
    const walkSteps: Array<[ActionKind, number, number, number]> = [
      [1, 1],
      [1, 2],
      [1, 3],
      [1, 2],
      [1, 1],
      [2, 1],
      [3, 1],
      [4, 1],
      [5, 1],
      [5, 2],
      [5, 3],
      [4, 3],
      [3, 3],
    ].map(([x, y], i) => ['moved', x, y, TILES[i + 1] - TILES[i]]);
    const frontier = frontierWalk(MAZE, rules);
    const b = runBehaviour({ maze: MAZE, trace: trace(walkSteps), goalFound: true, ended: true, frontier });
    expect([b.explorationEfficiency, b.stepsVsFrontier]).toEqual([1, 1]);
    expect(b.frontier).toEqual({ goalStep: 13, atStep: 13, tiles: 31, runTiles: 31 });
    // all 12 cells in 13 moves: (1,2) and (1,1) again on the way back from the dead end, (1,2)-(1,3)-(1,2)-(1,1)
    // an A-B-A, not an oscillation
    expect([b.cellsVisited, b.revisits, b.deadEndReentries, b.oscillations]).toEqual([12, 2, 0, 0]);
  });
});

describe("a group's behaviour, with intervals over mazes", () => {
  // only the fields the group figures read; the rest of a run's behaviour is beside the point here
  const run = (maze: string, success: boolean, b: Partial<RunBehaviour>) => ({
    maze,
    success,
    behaviour: { looped: false, progress: null, ...b } as RunBehaviour,
  });
  const RUNS = [
    // maze A: a success that bumped twice in 10 attempts, a failure that looped and stalled for 2 of its 5 steps
    run('A', true, { moves: 8, wallBumps: 2, revisitRatio: 0.5, deadEndReentries: 1, oscillationMoves: 4 }),
    run('A', false, { moves: 5, wallBumps: 0, revisitRatio: 0.8, deadEndReentries: 0, oscillationMoves: 0 }),
    // maze B: a failure that stalled for 15 of its 20 steps
    run('B', false, { moves: 15, wallBumps: 5, revisitRatio: 0.2, deadEndReentries: 3, oscillationMoves: 6 }),
  ];
  Object.assign(RUNS[0].behaviour, { explorationEfficiency: 0.8, steps: 10 });
  Object.assign(RUNS[1].behaviour, {
    explorationEfficiency: 0.4,
    steps: 5,
    looped: true,
    progress: { lastStep: 3, x: 0, y: 0, stepsAfter: 2 },
  });
  Object.assign(RUNS[2].behaviour, {
    explorationEfficiency: 0.6,
    steps: 20,
    progress: { lastStep: 5, x: 0, y: 0, stepsAfter: 15 },
  });
  const s = behaviourStatistics(RUNS);
  const bounds = (i: { low: number; high: number } | null) => ({ low: i!.low, high: i!.high });

  it('gives each figure as counted by hand, over the runs and mazes it is over', () => {
    expect([s.runs, s.mazes]).toEqual([3, 2]);
    expect(s.looped.value).toBeCloseTo(1 / 3, 12); // 1 of 3 runs
    expect(s.revisitRatio.value).toBeCloseTo(0.5, 12); // (0.5 + 0.8 + 0.2) / 3
    expect(s.wallBumpsPer100.value).toBeCloseTo(20, 12); // 100 x 7 bumps / 35 attempts (10 + 5 + 20)
    expect(s.deadEndReentriesPer100.value).toBeCloseTo(400 / 28, 12); // 100 x 4 / 28 moves
    expect(s.oscillationMovesPer100.value).toBeCloseTo(1000 / 28, 12); // 100 x 10 / 28 moves
    expect(s.explorationEfficiency.value).toBeCloseTo(0.6, 12); // (0.8 + 0.4 + 0.6) / 3
    expect(s.stalledShare.value).toBeCloseTo(0.575, 12); // the failures only: (2/5 + 15/20) / 2
    expect([s.stalledShare.runs, s.stalledShare.mazes]).toEqual([2, 2]);
  });

  it("takes each interval from the maze-level machinery, a maze's runs summed", () => {
    expect(s.looped).toMatchObject(
      bounds(
        mazeRate([
          { num: 1, den: 2 },
          { num: 0, den: 1 },
        ]),
      ),
    );
    // a mean of runs' shares on the logit scale, by hand: mazes (0.6 + 0.7, 2 runs) and (0.2, 1 run): r = 1.5 / 3 =
    // 0.5; cluster-robust variance 2/1 x ((1.3 - 1)^2 + (0.2 - 0.5)^2) / 3^2 = 0.04; t(0.975, 1 df) = 12.7062047
    const half = (12.7062047361747 * 0.2) / (0.5 * 0.5);
    expect(s.revisitRatio.low).toBeCloseTo(1 / (1 + Math.exp(half)), 9);
    expect(s.revisitRatio.high).toBeCloseTo(1 / (1 + Math.exp(-half)), 9);
    // wall bumps as a share of move attempts (2 of 15, 5 of 20), x 100
    const bumps = mazeRate([
      { num: 2, den: 15 },
      { num: 5, den: 20 },
    ])!;
    expect(s.wallBumpsPer100).toMatchObject({ low: 100 * bumps.low, high: 100 * bumps.high });
    expect(s.stalledShare).toMatchObject(
      bounds(
        clusterShare([
          { num: 0.4, den: 1 },
          { num: 0.75, den: 1 },
        ]),
      ),
    );
  });

  it('leaves out runs a figure has no denominator for, and gives no interval from one maze', () => {
    const still = run('C', false, { moves: 0, wallBumps: 0, revisitRatio: null, steps: 0 });
    const one = behaviourStatistics([still, run('C', true, { moves: 4, wallBumps: 1, revisitRatio: 0.25 })]);
    expect(one.revisitRatio).toEqual({ value: 0.25, low: null, high: null, runs: 1, mazes: 1 });
    expect(one.wallBumpsPer100).toEqual({ value: 20, low: null, high: null, runs: 1, mazes: 1 }); // 1 of 5
    expect(behaviourStatistics([]).looped).toEqual({ value: null, low: null, high: null, runs: 0, mazes: 0 });
  });
});
