// A group's behaviour (reports/behaviour.ts per run) as figures with 95% intervals at the level of the maze, the unit
// of replication (reports/maze-inference.ts): a share of runs or of moves as a rate (Korn-Graubard), a mean of runs'
// shares on the logit scale and exploration on the log scale (cluster-robust t on mazes - 1 df), as calibrated by
// simulation (reports/calibration.ts calibrateRatio). Over the observations the success rate is over
// (reports/sweep-statistics.ts); what each figure includes is said on BehaviourStatistics.
import { clusterSums, type ClusterSums } from './bootstrap.ts';
import { clusterPositive, clusterShare, mazeRate } from './maze-inference.ts';
import type { RunBehaviour } from './behaviour.ts';

/** A figure, its maze-level 95% interval (nulls below 2 mazes), and the runs and mazes it is over. */
export interface Estimate {
  value: number | null;
  low: number | null;
  high: number | null;
  runs: number;
  mazes: number;
}

export interface BehaviourStatistics {
  /** The observations with their moves read (every independent success and failure). */
  runs: number;
  mazes: number;
  /** Runs that entered some cell 10 or more times (MazeEval's loop), as a share of the runs. */
  looped: Estimate;
  /** The mean over runs with a move of their revisits / moves taken. */
  revisitRatio: Estimate;
  /** Moves refused by a wall or the edge per 100 move attempts, pooled over the runs (a ratio of sums). */
  wallBumpsPer100: Estimate;
  /** Moves into a dead end already visited per 100 moves taken, pooled. */
  deadEndReentriesPer100: Estimate;
  /** Moves in oscillations (A-B-A-B, 3 moves or more) per 100 moves taken, pooled. */
  oscillationMovesPer100: Estimate;
  /** The mean of the runs' tiles seen / the frontier baseline's at the same step (runs with a step). */
  explorationEfficiency: Estimate;
  /** Over the failures: the mean share of a run's steps taken after its progress stopped (runs with a step). */
  stalledShare: Estimate;
}

/** An observation as the behaviour statistics read it: its maze (the cluster), outcome and behaviour. */
export interface BehaviourRun {
  maze: string;
  success: boolean;
  behaviour: RunBehaviour;
}

type Sums = (b: RunBehaviour) => ClusterSums;

/**
 * How a figure's interval is had: `rate`, a share of runs or of moves (Korn-Graubard's, as the success rate's);
 * `share`, a mean of runs' shares (logit scale); `positive`, a mean with no upper bound (log scale).
 */
type Kind = 'rate' | 'share' | 'positive';
const INTERVALS = { rate: mazeRate, share: clusterShare, positive: clusterPositive };

/** Σ num / Σ den over `runs` with a denominator, times `scale`, with its maze-level interval. */
function estimate(runs: readonly BehaviourRun[], sums: Sums, kind: Kind, scale = 1): Estimate {
  const kept = runs.filter((r) => sums(r.behaviour).den > 0);
  const byMaze = clusterSums(
    kept,
    (r) => r.maze,
    (r) => sums(r.behaviour),
  );
  const [num, den] = byMaze.reduce(([n, d], c) => [n + c.num, d + c.den], [0, 0]);
  const interval = INTERVALS[kind](byMaze);
  return {
    value: den === 0 ? null : (scale * num) / den,
    low: interval ? scale * interval.low : null,
    high: interval ? scale * interval.high : null,
    runs: kept.length,
    mazes: byMaze.length,
  };
}

const one = (x: number | null): ClusterSums => (x === null ? { num: 0, den: 0 } : { num: x, den: 1 });
const of = (count: number, total: number): ClusterSums => ({ num: count, den: total });

/** A group's behaviour figures over its observations (see BehaviourStatistics). */
export function behaviourStatistics(runs: readonly BehaviourRun[]): BehaviourStatistics {
  const failures = runs.filter((r) => !r.success);
  const stalled = (b: RunBehaviour) => (b.progress && b.steps > 0 ? b.progress.stepsAfter / b.steps : null);
  return {
    runs: runs.length,
    mazes: new Set(runs.map((r) => r.maze)).size,
    looped: estimate(runs, (b) => one(b.looped ? 1 : 0), 'rate'),
    revisitRatio: estimate(runs, (b) => one(b.revisitRatio), 'share'),
    wallBumpsPer100: estimate(runs, (b) => of(b.wallBumps, b.moves + b.wallBumps), 'rate', 100),
    deadEndReentriesPer100: estimate(runs, (b) => of(b.deadEndReentries, b.moves), 'rate', 100),
    oscillationMovesPer100: estimate(runs, (b) => of(b.oscillationMoves, b.moves), 'rate', 100),
    explorationEfficiency: estimate(runs, (b) => one(b.explorationEfficiency), 'positive'),
    stalledShare: estimate(failures, (b) => one(stalled(b)), 'share'),
  };
}
