// The behaviour analytics in words, one way for every page: a run's (ariadne summary), a group's with its maze-level
// intervals (ariadne stats, the report), and what each figure includes and excludes (the notes under them).
import type { RunBehaviour } from './behaviour.ts';
import { LOOP_ENTRIES } from './behaviour.ts';
import type { BehaviourStatistics, Estimate } from './behaviour-statistics.ts';
import { formatNumber, formatRate } from './stat-format.ts';
import { plural } from './words.ts';

/** A figure with its interval and mazes: "25.0% (3.1% - 80.6%, 4 mazes)", "too few mazes (1)" without one. */
function estimateText(e: Estimate, format: (x: number | null) => string): string {
  if (e.value === null) return '-';
  const interval =
    e.low === null ? `too few mazes (${e.mazes})` : `${format(e.low)} - ${format(e.high)}, ${plural(e.mazes, 'maze')}`;
  return `${format(e.value)} (${interval})`;
}

const rate = (x: number | null) => formatRate(x);
const three = (x: number | null) => formatNumber(x, 3);
const one = (x: number | null) => formatNumber(x, 1);

/** A group's behaviour figures in words, each with its maze-level interval. */
export function behaviourText(s: BehaviourStatistics) {
  return {
    looped: estimateText(s.looped, rate),
    revisits: estimateText(s.revisitRatio, three),
    wallBumps: estimateText(s.wallBumpsPer100, one),
    deadEnds: estimateText(s.deadEndReentriesPer100, one),
    oscillations: estimateText(s.oscillationMovesPer100, one),
    exploration: estimateText(s.explorationEfficiency, three),
    stalled: estimateText(s.stalledShare, rate),
  };
}

/** A group's behaviour as one sentence, for the lines under a table. */
export function behaviourSentence(s: BehaviourStatistics): string {
  const t = behaviourText(s);
  return (
    `over ${plural(s.runs, 'run')}: looped ${t.looped}; revisit ratio ${t.revisits}; wall bumps ${t.wallBumps} per ` +
    `100 move attempts; dead-end re-entries ${t.deadEnds} and oscillation moves ${t.oscillations} per 100 moves; ` +
    `tiles vs frontier ${t.exploration}; steps after progress stopped (failures) ${t.stalled}`
  );
}

/** What each behaviour figure counts, includes and excludes: one sentence each, for notes under a table. */
const NOTES = {
  all:
    'Behaviour figures are over the independent runs the success rate is over (errors, wall-clock stops, running ' +
    "runs and deterministic copies excluded), read from each run's executed actions; every interval is at the " +
    'level of the maze (rates: Korn-Graubard; the rest: ratios of sums, cluster-robust t on mazes - 1 df, one ' +
    'point where every maze gave the same value).',
  looped:
    `Looped: runs that entered some cell ${LOOP_ENTRIES} or more times (MazeEval's loop), as a share of the ` + 'runs.',
  revisits:
    'Revisit ratio: per run, moves into a cell already visited (the start counts as visited) over moves taken, ' +
    'averaged over the runs that moved.',
  wallBumps:
    'Wall bumps: moves refused by a wall or the maze edge per 100 move attempts (moves taken plus refused), ' +
    'pooled over the runs; invalid calls and recalls are not move attempts.',
  deadEnds:
    'Dead-end re-entries: moves into an already visited cell with one open neighbour; oscillation moves: moves in ' +
    'back-and-forth stretches between two cells of 3 moves or more (A-B-A-B); both per 100 moves taken, pooled.',
  exploration:
    "Tiles vs frontier: a run's tiles seen over the frontier baseline's on the same maze, vision and success " +
    'rule at the same step (the last step both walks have), averaged over the runs.',
  stalled:
    "Steps after progress stopped: over the failures, the share of a run's steps after its last step that saw a " +
    'new tile or entered a new cell, averaged.',
};

/** Every behaviour figure's note (ariadne stats, the report). */
export const BEHAVIOUR_NOTES: readonly string[] = Object.values(NOTES);

/** The notes of the paper table's behaviour columns, and where the other figures are. */
export const PAPER_BEHAVIOUR_NOTES: readonly string[] = [
  NOTES.all,
  NOTES.looped,
  NOTES.revisits,
  NOTES.wallBumps,
  NOTES.exploration,
  'Dead-end re-entries, oscillations and the steps after progress stopped are in `ariadne stats --format csv` ' +
    'and the sweep report.',
];

/** Cells visited a quarter, half, three quarters of the way through a run and at its end, from the 1% samples. */
function coverageByQuarter(b: RunBehaviour): string {
  const at = (k: number) => b.coverage.cells[b.coverage.steps.indexOf(Math.round((k * b.steps) / 100))];
  return [25, 50, 75, 100].map(at).join(', ');
}

/** A run's behaviour as the lines of its summary. */
export function runBehaviourLines(b: RunBehaviour): string[] {
  const f = b.frontier;
  const share = b.reachableCells === 0 ? '-' : formatRate(b.cellsVisited / b.reachableCells);
  return [
    `looped: ${b.looped ? `yes, ${plural(b.loopCells, 'cell')} entered ${LOOP_ENTRIES} or more times` : 'no'} ` +
      `(most entries of one cell: ${b.mostEntries})`,
    `moves: ${b.moves} taken, ${b.wallBumps} refused by a wall or the edge (${one(b.wallBumpsPer100)} per 100)`,
    `revisits: ${b.revisits} (${three(b.revisitRatio)} of moves); dead-end re-entries ${b.deadEndReentries}; ` +
      `oscillations ${b.oscillations} (${plural(b.oscillationMoves, 'move')})`,
    `coverage: ${b.cellsVisited} of ${b.reachableCells} reachable cells (${share}), ${b.tilesSeen} tiles seen`,
    `cells visited at 25%, 50%, 75% and 100% of the steps: ${coverageByQuarter(b)}`,
    `frontier: ${f.goalStep === null ? `no goal by step ${f.atStep}` : `goal in ${plural(f.goalStep, 'step')}`}; ` +
      `at step ${f.atStep} it had seen ${f.tiles} tiles, this run ${f.runTiles} (${three(b.explorationEfficiency)})`,
    ...(b.progress
      ? [
          `progress stopped at step ${b.progress.lastStep} in (${b.progress.x},${b.progress.y}): ` +
            `${plural(b.progress.stepsAfter, 'step')} after it saw no new tile or cell`,
        ]
      : []),
  ];
}
