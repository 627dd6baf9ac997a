// A sweep's stop_when rule (core/sweeps/sweep-spec.ts), judged from its runs: mazes are taken in the order the sweep
// starts them (fixed by its name before any run), each once all its runs ended, as d = (successes of a - successes
// of b) / pairs; an anytime-valid confidence sequence over them (confidence-sequence.ts) may be looked at after every
// maze. The local sweep asks it before each start and stops once it is decided; `stats` says what it decided and
// which guarantee holds.
import { ConfidenceSequence } from './confidence-sequence.ts';

export interface StopRule {
  /** The two agent labels compared: success(a) - success(b). */
  compare: [string, string];
  confidence: number;
  /** No decision before this many mazes. */
  min_mazes: number;
}

/** What the rule needs of a run (results/statistics-runs.ts's rows). */
export interface StopRunRow {
  maze: string;
  repeat: number;
  outcome_class: string;
  goal_found: boolean;
  /** The run's label (the factor f0 of the rows read by label). */
  label: string;
}

export interface SequentialState {
  rule: StopRule;
  /** Mazes the sweep lists, and those whose runs have all ended, counted in order up to the first that has not. */
  planned: number;
  complete: number;
  /** Mazes in the sequence: complete ones with at least one pair that ended by the rules of the game. */
  mazes: number;
  /** The sequence over those mazes; null before any. */
  interval: { low: number; high: number } | null;
  /** The label found better, and after how many mazes of the sequence; null while undecided. */
  decided: { better: string; atMazes: number; interval: { low: number; high: number } } | null;
}

/** Per maze, in the given order: null until all `repeats` runs of both labels ended, else its pairs' mean d. */
function mazeDifferences(rows: readonly StopRunRow[], order: readonly string[], rule: StopRule, repeats: number) {
  const byMaze = new Map<string, Map<string, StopRunRow>>();
  for (const r of rows) {
    if (!rule.compare.includes(r.label)) continue;
    const runs = byMaze.get(r.maze) ?? new Map<string, StopRunRow>();
    runs.set(`${r.label}|${r.repeat}`, r);
    byMaze.set(r.maze, runs);
  }
  const counted = (r: StopRunRow | undefined) => r && (r.outcome_class === 'success' || r.outcome_class === 'failure');
  return order.map((maze) => {
    const runs = byMaze.get(maze);
    if (!runs || runs.size < 2 * repeats || [...runs.values()].some((r) => r.outcome_class === 'running')) return null;
    let [pairs, sum] = [0, 0];
    for (let repeat = 1; repeat <= repeats; repeat++) {
      const [a, b] = rule.compare.map((label) => runs.get(`${label}|${repeat}`));
      if (!counted(a) || !counted(b)) continue;
      pairs++;
      sum += Number(a!.goal_found) - Number(b!.goal_found);
    }
    return { d: pairs > 0 ? sum / pairs : null };
  });
}

/** The rule's state over the sweep's runs; `order` lists the sweep's mazes in the order it starts them. */
export function sequentialState(
  rows: readonly StopRunRow[],
  order: readonly string[],
  rule: StopRule,
  repeats: number,
): SequentialState {
  const cs = new ConfidenceSequence(1 - rule.confidence);
  let [complete, mazes] = [0, 0];
  let decided: SequentialState['decided'] = null;
  for (const maze of mazeDifferences(rows, order, rule, repeats)) {
    if (maze === null) break; // a maze still running holds back those after it: the order stays the one fixed
    complete++;
    if (maze.d === null) continue;
    cs.add(maze.d);
    mazes++;
    const verdict = mazes >= rule.min_mazes ? cs.decided() : null;
    if (!decided && verdict)
      decided = {
        better: verdict === 'a' ? rule.compare[0] : rule.compare[1],
        atMazes: mazes,
        interval: { low: cs.interval.low, high: cs.interval.high },
      };
  }
  const interval = mazes > 0 ? { low: cs.interval.low, high: cs.interval.high } : null;
  return { rule, planned: order.length, complete, mazes, interval, decided };
}

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}`;
const span = (i: { low: number; high: number }) => `[${pct(i.low)}, ${pct(i.high)}] points`;

/**
 * What the rule decided, the guarantee that holds, and what it does to the table's other intervals, in sentences
 * (`stats`, reports). `stopped`: the sweep left runs unstarted (its plan says how many).
 */
export function sequentialText(s: SequentialState, stopped: boolean): string {
  const [a, b] = s.rule.compare;
  const level = `${Math.round(s.rule.confidence * 100)}%`;
  const what = `success(${a}) - success(${b})`;
  const now = s.interval
    ? `over the ${s.mazes} mazes whose runs all ended in order, the ${level} confidence sequence for ${what} is ` +
      `${span(s.interval)}`
    : 'no maze has all its runs ended yet';
  const verdict = s.decided
    ? `stop_when decided after ${s.decided.atMazes} of ${s.planned} mazes (${span(s.decided.interval)}): ` +
      `${s.decided.better} is better${stopped ? ', and the sweep stopped starting runs' : ''}`
    : `stop_when undecided after ${s.mazes} of ${s.planned} mazes (the sequence holds 0)`;
  return (
    `${verdict}; ${now}. Guarantee: the sequence holds the true difference at every look at once with probability ` +
    `at least ${level} (the hedged-capital betting confidence sequence of Waudby-Smith and Ramdas 2024, JRSS-B ` +
    '86:1, Theorem 3), so stopping when it excludes 0 keeps the error at most ' +
    `${Math.round((1 - s.rule.confidence) * 100)}%. The table's other intervals and p values assume the mazes were ` +
    'fixed in advance: after a stop that looked at the data they are not valid; read the sequence.'
  );
}
