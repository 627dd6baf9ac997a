// A suite's human reference: the people's games on its mazes (ariadne play --suite, the viewer's play page), counted
// as the baselines' reference is (core/maze/suites.ts), per player and for all, by observation format. A maze counts
// once per player: the first game on it that ended by the rules of the game. A later game on it is practice, and one
// ended by an error or the wall clock is in no denominator. Several players on one maze are one cluster: the maze is
// the unit of replication, so such a row's interval is the maze-level one, not Wilson's over games.
import { findSuite, suiteNumber, type HumanReferenceRow, type MazeSuite } from '../core/maze/suites.ts';
import type { Sql } from '../core/store/sql.ts';
import { humanSuiteRuns, type HumanSuiteRun } from '../results/human-runs.ts';
import { stopReasonOf } from '../results/stop-reasons.ts';
import { clusterSums } from './bootstrap.ts';
import { mazeRate } from './maze-inference.ts';
import { mean, wilson } from './sweep-statistics.ts';

export interface HumanReference {
  suite: string;
  rows: HumanReferenceRow[];
  /** Games not counted, by why: practice (a maze played again), an error or wall-clock stop, another maze. */
  left_out: { replayed: number; not_by_the_rules: number; not_the_suites_maze: number };
}

/** The success rate's 95% interval: Wilson's when each maze has one game, the maze-level one when some have more. */
function successInterval(runs: HumanSuiteRun[], successes: number) {
  const byMaze = clusterSums(
    runs,
    (r) => String(r.suite_maze),
    (r) => ({ num: r.goal_found ? 1 : 0, den: 1 }),
  );
  if (byMaze.length === runs.length) return { ...wilson(successes, runs.length), interval: 'wilson' as const };
  const m = mazeRate(byMaze);
  return { low: m?.low ?? null, high: m?.high ?? null, interval: 'maze' as const };
}

function scores(runs: HumanSuiteRun[]) {
  const n = runs.length;
  const successes = runs.filter((r) => r.goal_found).length;
  const { low, high, interval } = successInterval(runs, successes);
  return {
    n,
    successes,
    success_rate: n === 0 ? null : suiteNumber(successes / n),
    low95: suiteNumber(low),
    high95: suiteNumber(high),
    interval,
    mean_efficiency: suiteNumber(
      mean(runs.filter((r) => r.goal_found && r.efficiency !== null).map((r) => Number(r.efficiency))),
    ),
    mean_actions: suiteNumber(mean(runs.map((r) => r.actions))),
  };
}

/** Whether a game ended by the rules of the game (a success or a failure), not by an error or the wall clock. */
const byTheRules = (r: HumanSuiteRun) => {
  const end = stopReasonOf({
    status: r.status,
    goalFound: r.goal_found,
    stopReason: r.stop_reason,
    failureReason: r.failure_reason,
    interrupted: false,
  });
  return !['error', 'outage', 'wall_clock', 'running', 'interrupted'].includes(end);
};

/** The human reference of `suite` (its ref: ariadne-mazes/v1) from the games in `db`. */
export async function humanReference(db: Sql, ref: string, suite: MazeSuite): Promise<HumanReference> {
  const left_out = { replayed: 0, not_by_the_rules: 0, not_the_suites_maze: 0 };
  const counted: HumanSuiteRun[] = [];
  const played = new Set<string>();
  for (const r of await humanSuiteRuns(db, ref)) {
    if (suite.mazes[r.suite_maze]?.hash !== r.maze_hash) left_out.not_the_suites_maze++;
    else if (!byTheRules(r)) left_out.not_by_the_rules++;
    else if (played.has(`${r.player} ${r.suite_maze}`)) left_out.replayed++;
    else {
      played.add(`${r.player} ${r.suite_maze}`);
      counted.push(r);
    }
  }
  const rows: HumanReferenceRow[] = [];
  const players = [...new Set(counted.map((r) => r.player))].sort();
  const observations = [...new Set(counted.map((r) => r.observation))].sort();
  for (const observation of observations)
    // every player together, then each; one player alone is one row
    for (const player of players.length === 1 ? players : [null, ...players]) {
      const mine = counted.filter((r) => r.observation === observation && (player === null || r.player === player));
      if (mine.length === 0) continue;
      const row = (generator: string, size: number | 'all', runs: HumanSuiteRun[]): HumanReferenceRow => ({
        player,
        observation,
        generator,
        size,
        mazes: new Set(runs.map((r) => r.suite_maze)).size,
        ...scores(runs),
      });
      rows.push(row('all', 'all', mine));
      for (const generator of suite.generators)
        for (const size of suite.sizes) {
          const group = mine.filter((r) => {
            const m = suite.mazes[r.suite_maze];
            return m.generator === generator && m.size === size;
          });
          if (group.length > 0) rows.push(row(generator, size, group));
        }
    }
  return { suite: ref, rows, left_out };
}

/** A suite's human reference as shown beside a sweep on it: shipped in the suite file, or from the database. */
export interface SuiteHumans extends HumanReference {
  source: 'shipped' | 'database';
  /** When the shipped one was recorded. */
  recorded_at?: string;
}

/** The human references of suite `ref` that have rows: the one it ships, then this database's games. */
export async function suiteHumans(db: Sql, ref: string): Promise<SuiteHumans[]> {
  const { suite } = findSuite(ref);
  const shipped = suite.human_reference;
  const database = await humanReference(db, ref, suite);
  return [
    ...(shipped ? [{ source: 'shipped' as const, suite: ref, ...shipped }] : []),
    ...(database.rows.length > 0 ? [{ source: 'database' as const, ...database }] : []),
  ];
}
