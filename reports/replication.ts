// A published success rate beside ours, and whether they agree: the verdict `ariadne replicate` gives each published
// number of a protocol (examples/protocols/, reports/protocols.ts). Ours is a sweep group's success rate with its
// maze-level 95% interval (reports/sweep-statistics.ts: the maze is the unit of replication); the rule is
// replicationVerdict's, pure and stated there. An interval of the difference that holds 0 is not agreement: only
// one narrow enough to rule out a difference of EQUIVALENCE_MARGIN is.
import { sameValue, type PublishedNumber } from './protocols.ts';
import { wilson, type GroupStatistics, type Interval } from './sweep-statistics.ts';

/** A published rate: the proportion, and when the source gives them, its successes and the n it is over. */
export interface PublishedRate {
  value: number;
  successes?: number;
  n?: number;
  /** Where n comes from when not from the number's source (an assumption the verdict then names). */
  nSource?: string;
}

/** Our rate with its maze-level 95% interval (null bounds: too few mazes). */
export interface OurRate {
  rate: number | null;
  low: number | null;
  high: number | null;
  mazes: number;
}

/**
 * The equivalence margin, as a proportion: ours and theirs are called consistent only when the 95% interval of
 * ours - theirs lies within +-10 points. A difference interval that merely holds 0 is no evidence of agreement
 * (with few mazes it always does); below the margin a difference is taken as too small to matter here.
 */
export const EQUIVALENCE_MARGIN = 0.1;

type VerdictWord = 'consistent' | 'inconclusive' | 'differs' | 'no verdict';

export interface Verdict {
  verdict: VerdictWord;
  /** How it was decided: a difference interval, or none (no n of theirs, or no interval of ours). */
  test: 'difference of proportions' | 'no n of theirs' | 'none';
  /** Their value inside our interval (both ends included); null without an interval of ours. */
  inside: boolean | null;
  /** Their rate's Wilson 95% interval (with their n only). */
  theirs: Interval | null;
  /** ours - theirs with its 95% interval (with their n only). */
  difference: { estimate: number; low: number; high: number } | null;
  /** The equivalence margin the verdict used. */
  margin: number;
  /** The largest |ours - theirs| the difference interval leaves possible (with their n only). */
  ruledOutBeyond: number | null;
  /** The decision in words, numbers included. */
  reason: string;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
/** A difference in percentage points, signed. */
const points = (x: number) => `${x > 0 ? '+' : ''}${(x * 100).toFixed(1)}`;

/** Their successes: as given, else their rate times n rounded (a source that gives a percentage and an n). */
const successesOf = (p: PublishedRate & { n: number }) => p.successes ?? Math.round(p.value * p.n);

/**
 * Newcombe's hybrid score interval for p1 - p2 (his method 10), each rate's own 95% interval squared and added:
 * [d - sqrt((p1 - l1)^2 + (u2 - p2)^2), d + sqrt((u1 - p1)^2 + (p2 - l2)^2)]. With Wilson intervals on both sides it
 * is Newcombe's; with another valid interval on one side (ours, the maze-level one) it is Zou and Donner's (2008)
 * MOVER, the same construction.
 */
export function newcombeDifference(
  p1: number,
  i1: { low: number; high: number },
  p2: number,
  i2: { low: number; high: number },
): { estimate: number; low: number; high: number } {
  const d = p1 - p2;
  return {
    estimate: d,
    low: d - Math.sqrt((p1 - i1.low) ** 2 + (i2.high - p2) ** 2),
    high: d + Math.sqrt((i1.high - p1) ** 2 + (p2 - i2.low) ** 2),
  };
}

/** The word for a difference interval: excludes 0, within +-margin, or neither. */
function differenceWord(d: { low: number; high: number }, margin: number): VerdictWord {
  if (d.low > 0 || d.high < 0) return 'differs';
  return Math.max(-d.low, d.high) <= margin ? 'consistent' : 'inconclusive';
}

/** Why, in words: the margin and the largest difference left possible, in points. */
function why(word: VerdictWord, margin: number, bound: number): string {
  const [m, b] = [(margin * 100).toFixed(1), (bound * 100).toFixed(1)];
  if (word === 'differs')
    return bound <= margin
      ? `excludes 0, though it lies within +-${m} points (a difference below the margin)`
      : 'excludes 0';
  return word === 'consistent'
    ? `holds 0 and lies within +-${m} points: differences beyond ${b} points are ruled out`
    : `holds 0 but reaches ${b} points, past the +-${m}-point margin: too wide to tell agreement from a difference`;
}

/** No interval of ours: no verdict, and why. */
const noVerdict = (ours: OurRate, margin: number): Verdict => ({
  verdict: 'no verdict',
  test: 'none',
  inside: null,
  theirs: null,
  difference: null,
  margin,
  ruledOutBeyond: null,
  reason:
    ours.mazes === 0
      ? 'no finished run of ours in this condition'
      : `too few mazes for an interval of ours (${ours.mazes}; it needs 2)`,
});

/**
 * The verdict on one published rate against ours, at 95%, with an equivalence margin (default EQUIVALENCE_MARGIN):
 * - their n given: the 95% interval for ours - theirs, squared and added (newcombeDifference) from our maze-level
 *   interval and the Wilson interval of their k of n. **differs** when it excludes 0; **consistent** when it lies
 *   within +-margin (both ends included), a two one-sided tests equivalence at 2.5% a side; else **inconclusive**
 *   (it holds 0 but is too wide to rule out a difference of the margin). An n not from the number's source
 *   (nSource) is used, and the reason says so.
 * - no n given: their sampling error is unknown, so no interval for theirs and no test: **inconclusive**, saying
 *   whether their value lies inside our interval (which counts our sampling error only).
 * - no interval of ours (fewer than 2 mazes with a finished run): no verdict.
 * Each number is tested on its own; a protocol's several numbers are not corrected for multiplicity.
 */
export function replicationVerdict(theirs: PublishedRate, ours: OurRate, margin = EQUIVALENCE_MARGIN): Verdict {
  if (ours.rate === null || ours.low === null || ours.high === null) return noVerdict(ours, margin);
  const inside = ours.low <= theirs.value && theirs.value <= ours.high;
  const ourText = `${pct(ours.rate)} [${pct(ours.low)}, ${pct(ours.high)}] over ${ours.mazes} mazes`;
  if (theirs.n === undefined)
    return {
      verdict: 'inconclusive',
      test: 'no n of theirs',
      inside,
      theirs: null,
      difference: null,
      margin,
      ruledOutBeyond: null,
      reason:
        `they give no n: no interval for theirs can be computed, so neither agreement nor a difference can be ` +
        `tested; their ${pct(theirs.value)} lies ${inside ? 'inside' : 'outside'} our maze-level 95% interval ` +
        `(${ourText}), which counts our sampling error only`,
    };
  const k = successesOf({ ...theirs, n: theirs.n });
  const band = wilson(k, theirs.n) as { low: number; high: number };
  const difference = newcombeDifference(ours.rate, { low: ours.low, high: ours.high }, k / theirs.n, band);
  const verdict = differenceWord(difference, margin);
  const bound = Math.max(Math.abs(difference.low), Math.abs(difference.high));
  return {
    verdict,
    test: 'difference of proportions',
    inside,
    theirs: band,
    difference,
    margin,
    ruledOutBeyond: bound,
    reason:
      `ours - theirs = ${points(difference.estimate)} points, 95% [${points(difference.low)}, ` +
      `${points(difference.high)}] (our ${ourText}; their ${k}/${theirs.n}, Wilson [${pct(band.low)}, ` +
      `${pct(band.high)}]): ${why(verdict, margin, bound)}` +
      (theirs.nSource ? `; their n is not the source's: ${theirs.nSource}` : ''),
  };
}

/** One published number beside the group of our sweep its selector names (one row per matching group). */
export interface ComparisonRow {
  id: string;
  claim: string;
  theirs: PublishedRate;
  /** The selector, and the group's factors (with `simulated` when a sweep has both kinds). */
  selector: Record<string, unknown>;
  group: Record<string, unknown> | null;
  ours: OurRate & { runs: number; successes: number; simulatedRuns: number };
  verdict: Verdict;
}

/** The groups of our statistics a selector names: each of its factors at the selector's value. */
const matching = (groups: readonly GroupStatistics[], selector: Record<string, unknown>) =>
  groups.filter((g) => Object.entries(selector).every(([f, v]) => f in g.factors && sameValue(g.factors[f], v)));

/**
 * Every published number against our statistics: `groupsBy(factors)` gives the sweep's groups by exactly the
 * factors a number's selector names (plus `simulated` where a sweep mixes simulated and real runs: a row each).
 */
export function compareNumbers(
  published: readonly PublishedNumber[],
  groupsBy: (factors: string[]) => readonly GroupStatistics[],
): ComparisonRow[] {
  return published.flatMap((p) => {
    const theirs = { value: p.value, successes: p.successes, n: p.n, nSource: p.n_source };
    const found = matching(groupsBy(Object.keys(p.ours)), p.ours);
    const row = (g: GroupStatistics | null): ComparisonRow => {
      const ours = {
        rate: g?.success.rate ?? null,
        low: g?.success.maze.low ?? null,
        high: g?.success.maze.high ?? null,
        mazes: g?.mazes ?? 0,
        runs: g?.independent ?? 0,
        successes: g?.independentSuccesses ?? 0,
        simulatedRuns: g?.simulatedRuns ?? 0,
      };
      const verdict = g
        ? replicationVerdict(theirs, ours)
        : { ...replicationVerdict(theirs, ours), reason: 'no group of the sweep matches: it has no such cell' };
      return { id: p.id, claim: p.claim, theirs, selector: p.ours, group: g?.factors ?? null, ours, verdict };
    };
    return found.length === 0 ? [row(null)] : found.map(row);
  });
}

/** What decides a sweep's runs: its agents, mazes, settings, shared config and repeats (not its name or budget). */
const SPEC_PARTS = ['agents', 'mazes', 'settings', 'config', 'repeats'] as const;

/** JSON with keys sorted: a spec read back from jsonb compares with one loaded from the file. */
const canonical = (value: unknown): string =>
  JSON.stringify(value ?? null, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );

/**
 * Where a sweep that ran differs from the protocol's sweep file, as paths (mazes.seeds, config.max_moves, agents):
 * the comparison is of the protocol only where none is listed.
 */
export function specDifferences(protocol: Record<string, unknown>, ran: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const part of SPEC_PARTS) {
    const [a, b] = [protocol[part], ran[part]];
    if (canonical(a) === canonical(b)) continue;
    const objects = [a, b].every((x) => x && typeof x === 'object' && !Array.isArray(x));
    if (!objects || part === 'agents') {
      out.push(part);
      continue;
    }
    const [x, y] = [a, b] as Array<Record<string, unknown>>;
    for (const key of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort())
      if (canonical(x[key]) !== canonical(y[key])) out.push(`${part}.${key}`);
  }
  return out;
}
