// Every pair of K agents on the same mazes, tested at the level of the maze with Holm's adjustment over the
// K(K-1)/2 pairs, and the agents ranked as Chatbot Arena ranks: 1 + how many agents are significantly better. A
// partition by "agents significantly better", not a compact letter display: it is simple and never claims an order
// the tests do not support (agents sharing a rank are ones the data cannot separate at this level; letters would
// need a covering of every non-significant pair). Calibrated by reports/ranking-calibration.ts.
import { InvalidInputError } from '../core/errors.ts';
import { holm, mazeRate, pairedDifference, signFlipTest, type MazePairs } from './maze-inference.ts';

/** One agent's successes and counted runs (errors out, copies once) on each maze. */
export interface AgentCounts {
  agent: string;
  mazes: ReadonlyArray<{ maze: string; successes: number; runs: number }>;
}

/** Two agents' pairs (same maze and repeat, as reports/compare.ts forms them), one entry per maze. */
export interface PairMazes {
  a: string;
  b: string;
  mazes: readonly MazePairs[];
}

export interface PairResult {
  a: string;
  b: string;
  /** Pairs counted, the mazes they stand on (the clusters) and those whose pairs differ (the test's resolution). */
  pairs: number;
  mazes: number;
  differing: number;
  /** Success of a minus success of b over the pairs, with its maze-level 95% interval (null below two mazes). */
  diff: number | null;
  low95: number | null;
  high95: number | null;
  /** The exact sign-flip p, Holm's adjusted p over the family (null: no pairs, not tested). */
  p: number | null;
  holmP: number | null;
  /** The agent the Holm-adjusted test finds better at alpha, or null. */
  better: string | null;
}

export interface RankedAgent {
  agent: string;
  /** 1 + the number of agents significantly better (Holm-adjusted p <= alpha, the estimate favouring them). */
  rank: number;
  /** Success over its counted runs, with its maze-level 95% interval (null below two mazes). */
  successRate: number | null;
  low95: number | null;
  high95: number | null;
  mazes: number;
  runs: number;
  betterAgents: string[];
  /** Every agent sharing its rank, itself included, in the ranking's order. */
  tieGroup: string[];
}

export interface AgentRanking {
  alpha: number;
  /** Pairs tested: the Holm family. */
  tests: number;
  pairs: PairResult[];
  /** By rank, then success rate (highest first), then name. */
  ranking: RankedAgent[];
  notes: string[];
}

/** Refuses what would make the family or the ranking wrong, naming the field and the fix. */
function checkInput(agents: readonly AgentCounts[], pairs: readonly PairMazes[], alpha: number): void {
  if (!(alpha > 0 && alpha < 1))
    throw new InvalidInputError('alpha', alpha, `alpha must be a level between 0 and 1, e.g. 0.05; got ${alpha}`);
  const names = agents.map((a) => a.agent);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined)
    throw new InvalidInputError('agents', twice, `agent "${twice}" is given twice; give each agent once`);
  const seen = new Set<string>();
  for (const p of pairs) {
    for (const side of [p.a, p.b])
      if (!names.includes(side))
        throw new InvalidInputError('pairs', side, `pair ${p.a} vs ${p.b} names "${side}", not one of the agents`);
    const key = [p.a, p.b].sort().join('\u0000');
    if (p.a === p.b || seen.has(key))
      throw new InvalidInputError('pairs', `${p.a} vs ${p.b}`, 'give each pair of two different agents once');
    seen.add(key);
  }
}

/** A pair's estimate, interval and raw test; holmP and better are set over the family. */
function testPair(p: PairMazes): PairResult {
  const live = p.mazes.filter((m) => m.pairs > 0);
  const pairs = live.reduce((s, m) => s + m.pairs, 0);
  const test = signFlipTest(live.map((m) => m.onlyA - m.onlyB));
  const interval = pairedDifference(live);
  const discordant = live.reduce((s, m) => s + m.onlyA - m.onlyB, 0);
  return {
    a: p.a,
    b: p.b,
    pairs,
    mazes: live.length,
    differing: test.differing,
    diff: pairs === 0 ? null : discordant / pairs,
    low95: interval?.low ?? null,
    high95: interval?.high ?? null,
    p: pairs === 0 ? null : test.p,
    holmP: null,
    better: null,
  };
}

/** Each pair with its Holm-adjusted p and, where it is at most alpha, the agent the estimate favours. */
function testPairs(pairs: readonly PairMazes[], alpha: number): PairResult[] {
  const tested = pairs.map(testPair);
  const adjusted = holm(tested.map((t) => t.p));
  return tested.map((t, i) => {
    const holmP = adjusted[i];
    const significant = holmP !== null && holmP <= alpha && t.diff !== null && t.diff !== 0;
    return { ...t, holmP, better: significant ? (t.diff! > 0 ? t.a : t.b) : null };
  });
}

function rateOf(a: AgentCounts) {
  const live = a.mazes.filter((m) => m.runs > 0);
  const runs = live.reduce((s, m) => s + m.runs, 0);
  const interval = mazeRate(live.map((m) => ({ num: m.successes, den: m.runs })));
  return {
    successRate: runs === 0 ? null : live.reduce((s, m) => s + m.successes, 0) / runs,
    low95: interval?.low ?? null,
    high95: interval?.high ?? null,
    mazes: live.length,
    runs,
  };
}

/** Rank, then success rate (none last), then name. */
function byRank(x: RankedAgent, y: RankedAgent): number {
  return (
    x.rank - y.rank ||
    (y.successRate ?? -1) - (x.successRate ?? -1) ||
    (x.agent < y.agent ? -1 : x.agent > y.agent ? 1 : 0)
  );
}

/** Agents ranked by how many are significantly better, with the members of each one's tie group. */
function rankFromPairs(agents: readonly AgentCounts[], tested: readonly PairResult[]): RankedAgent[] {
  const ranked = agents.map((a) => {
    const betterAgents = tested
      .filter((t) => t.better !== null && t.better !== a.agent && (t.a === a.agent || t.b === a.agent))
      .map((t) => t.better!)
      .sort();
    return { agent: a.agent, rank: 1 + betterAgents.length, ...rateOf(a), betterAgents, tieGroup: [] as string[] };
  });
  ranked.sort(byRank);
  return ranked.map((r) => ({ ...r, tieGroup: ranked.filter((o) => o.rank === r.rank).map((o) => o.agent) }));
}

/** The fewest differing mazes whose smallest sign-flip p (2 / 2^d) survives Holm's first step over `tests` pairs. */
function mazesToSeparate(tests: number, alpha: number): number {
  return Math.max(1, Math.ceil(Math.log2((2 * tests) / alpha)));
}

/** What a reader must know to read the ranking: pairs too thin to ever separate, tie groups the tests split. */
function rankingNotes(tested: readonly PairResult[], ranking: readonly RankedAgent[], alpha: number): string[] {
  const tests = tested.filter((t) => t.p !== null).length;
  const notes: string[] = [];
  const need = mazesToSeparate(tests, alpha);
  const thin = tested.filter((t) => t.p !== null && t.differing < need);
  if (tests > 0 && thin.length > 0)
    notes.push(
      `${thin.length} of ${tests} pairs differ on fewer than ${need} mazes, the fewest whose sign-flip p can reach ` +
        `a Holm-adjusted ${alpha} over ${tests} pairs: as they stand they cannot be separated at this level`,
    );
  const untested = tested.filter((t) => t.p === null);
  if (untested.length > 0)
    notes.push(
      `not tested (no pairs on a shared maze and repeat): ${untested.map((t) => `${t.a} vs ${t.b}`).join(', ')}`,
    );
  const split = tested.filter((t) => {
    const rank = (x: string) => ranking.find((r) => r.agent === x)!.rank;
    return t.better !== null && rank(t.a) === rank(t.b);
  });
  for (const t of split)
    notes.push(
      `${t.a} and ${t.b} share rank ${ranking.find((r) => r.agent === t.a)!.rank} yet differ significantly ` +
        '(the tests are not transitive here): read the pairs table for them',
    );
  return notes;
}

/**
 * Every pair's difference, 95% interval, exact sign-flip p and Holm-adjusted p over the pairs given (the family),
 * and the agents ranked in tie groups at `alpha`.
 */
export function rankAgents(agents: readonly AgentCounts[], pairs: readonly PairMazes[], alpha = 0.05): AgentRanking {
  checkInput(agents, pairs, alpha);
  const tested = testPairs(pairs, alpha);
  const ranking = rankFromPairs(agents, tested);
  return {
    alpha,
    tests: tested.filter((t) => t.p !== null).length,
    pairs: tested,
    ranking,
    notes: rankingNotes(tested, ranking, alpha),
  };
}

/**
 * The counts and every pair of K agents from outcomes by maze, repeat and agent (one run each: a run pairs with
 * the other agents' runs of its maze and repeat), as a simulation or a hand-made example gives them.
 */
export function outcomeCounts(
  agents: readonly string[],
  outcomes: ReadonlyArray<ReadonlyArray<readonly boolean[]>>,
): { agents: AgentCounts[]; pairs: PairMazes[] } {
  const mazeName = (m: number) => `maze ${m + 1}`;
  const counts = agents.map((agent, k) => ({
    agent,
    mazes: outcomes.map((repeats, m) => ({
      maze: mazeName(m),
      successes: repeats.filter((r) => r[k]).length,
      runs: repeats.length,
    })),
  }));
  const pairs = agents.flatMap((a, i) =>
    agents.slice(i + 1).map((b, d) => {
      const j = i + 1 + d;
      const mazes = outcomes.map((repeats) => ({
        pairs: repeats.length,
        onlyA: repeats.filter((r) => r[i] && !r[j]).length,
        onlyB: repeats.filter((r) => r[j] && !r[i]).length,
      }));
      return { a, b, mazes };
    }),
  );
  return { agents: counts, pairs };
}
