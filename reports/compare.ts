// Paired comparisons within a sweep, same maze and repeat, split by every other setting the sweep varies: two agents
// (compareAgents) or two values of one setting for one agent (compareSettings). Each gives the 2x2 table and, at the
// level of the maze (reports/maze-inference.ts), the exact sign-flip test with Holm's adjustment and 95% intervals of
// the success, efficiency and SPL differences. Only successes and failures pair (other pairs are counted in the
// notes), and pairs that repeat a deterministic pair's trajectories count once.
import type { Sql } from '../core/store/sql.ts';
import { agentPairRows, labelRuns, sweepLabelCounts, sweepLabels, type LabelRun } from '../results/sweep-pairs.ts';
import { countLeftOut, type UnpairedRuns } from '../results/pair-runs.ts';
import { InvalidInputError } from '../core/errors.ts';
import { clusterSums } from './bootstrap.ts';
import { clusterMean, holm, pairedDifference, signFlipTest, type MazePairs } from './maze-inference.ts';
import { repeatsNote } from './repeats.ts';
import { splOf } from './sweep-statistics.ts';
import { settingReaches } from './setting-reach.ts';

/** One comparison, within one combination of the other settings. */
interface PairTable {
  /** The other varied settings these pairs share (that reach either side); {} when none. */
  settings: Record<string, unknown>;
  pairs: number;
  bothSolved: number;
  onlyA: number;
  onlyB: number;
  neither: number;
  /**
   * The exact two-sided sign-flip test of the per-maze differences (mazes: how many have pairs; differing: how many
   * differ, which bounds p from below at minP); holmP: p adjusted by Holm over the comparison's tables.
   */
  test: { p: number; holmP: number; mazes: number; differing: number; minP: number };
  /** Run pairs left out because they repeat a counted pair exactly (deterministic repeats). */
  copiedPairs: number;
  /** Mazes among the pairs: the unit of replication, the clusters of every interval. */
  mazes: number;
  /**
   * Per side, the pairs whose run is a model run that walked the same path as another repeat of its cell
   * (identical), of the pairs whose run is a model run (of): shown as "2 of 5 repeats identical"; they still count.
   */
  identicalRepeats: { a: number; b: number; ofA: number; ofB: number };
  /** Success of a minus success of b over the pairs, with its maze-level interval (maze-inference.ts). */
  successDiff: { diff: number | null; low95: number | null; high95: number | null };
  /** The mean efficiency difference over pairs both solved (successes only), with its maze-level interval. */
  efficiency: {
    pairs: number;
    meanDiff: number | null;
    low95: number | null;
    high95: number | null;
    /** Mazes with a pair both solved: the interval's clusters. */
    mazes: number;
  };
  /** The mean SPL difference over every pair (a failure scores 0), with its maze-level interval. */
  spl: { meanDiff: number | null; low95: number | null; high95: number | null; mazes: number };
}

/**
 * a and b: the agent labels, or the setting's two values (with agent and factor). groups: one table per
 * combination of the other varied settings (ordered by them). The comparison's own PairTable fields are its first
 * group's, settings included, for readers of the shape from before settings were split: read `groups`.
 */
export interface Comparison extends PairTable {
  sweep: string;
  a: string;
  b: string;
  agent?: string;
  factor?: string;
  /** How repeats and errors were counted, in words; empty when every run is its own observation. */
  notes: string[];
  groups: PairTable[];
}

/** A counted pair: its maze (the cluster of every test and interval), both outcomes, the run pairs it stands for. */
interface Pair {
  maze: string;
  okA: boolean;
  okB: boolean;
  effA: number | null;
  effB: number | null;
  runPairs: number;
  identicalA: boolean;
  identicalB: boolean;
  modelA: boolean;
  modelB: boolean;
}

/** Each maze's pairs and discordant counts, in the order mazes first appear. */
export function mazePairs(pairs: ReadonlyArray<Pick<Pair, 'maze' | 'okA' | 'okB'>>): MazePairs[] {
  const byMaze = new Map<string, MazePairs>();
  for (const p of pairs) {
    const m = byMaze.get(p.maze) ?? { pairs: 0, onlyA: 0, onlyB: 0 };
    m.pairs++;
    if (p.okA && !p.okB) m.onlyA++;
    if (p.okB && !p.okA) m.onlyB++;
    byMaze.set(p.maze, m);
  }
  return [...byMaze.values()];
}

/** The mean of a per-pair difference with its maze-level interval. */
function meanDifference(pairs: Pair[], diff: (p: Pair) => number) {
  const byMaze = clusterSums(
    pairs,
    (p) => p.maze,
    (p) => ({ num: diff(p), den: 1 }),
  );
  const interval = clusterMean(byMaze, -1, 1);
  return {
    mazes: byMaze.length,
    meanDiff: pairs.length === 0 ? null : pairs.reduce((s, p) => s + diff(p), 0) / pairs.length,
    low95: interval?.low ?? null,
    high95: interval?.high ?? null,
  };
}

function pairTable(settings: Record<string, unknown>, pairs: Pair[]): PairTable {
  const count = (f: (p: Pair) => boolean) => pairs.filter(f).length;
  const onlyA = count((p) => p.okA && !p.okB);
  const onlyB = count((p) => p.okB && !p.okA);
  const solved = pairs.filter((p) => p.okA && p.okB && p.effA !== null && p.effB !== null);
  const mazes = mazePairs(pairs);
  const test = signFlipTest(mazes.map((m) => m.onlyA - m.onlyB));
  const success = pairedDifference(mazes);
  return {
    settings,
    pairs: pairs.length,
    bothSolved: count((p) => p.okA && p.okB),
    onlyA,
    onlyB,
    neither: count((p) => !p.okA && !p.okB),
    test: { ...test, holmP: test.p },
    copiedPairs: pairs.reduce((s, p) => s + p.runPairs - 1, 0),
    mazes: mazes.length,
    identicalRepeats: {
      a: count((p) => p.identicalA),
      b: count((p) => p.identicalB),
      ofA: count((p) => p.modelA),
      ofB: count((p) => p.modelB),
    },
    successDiff: {
      diff: pairs.length === 0 ? null : (onlyA - onlyB) / pairs.length,
      low95: success?.low ?? null,
      high95: success?.high ?? null,
    },
    efficiency: { pairs: solved.length, ...meanDifference(solved, (p) => p.effA! - p.effB!) },
    spl: meanDifference(pairs, (p) => splOf(p.okA, p.effA) - splOf(p.okB, p.effB)),
  };
}

/** Pairs grouped by their settings (as JSON with sorted keys), in a stable order. */
function tables(pairs: Array<Pair & { settings: Record<string, unknown> }>): PairTable[] {
  const groups = new Map<string, { settings: Record<string, unknown>; pairs: Pair[] }>();
  for (const p of pairs) {
    const key = stableJson(p.settings);
    const g = groups.get(key) ?? { settings: p.settings, pairs: [] };
    g.pairs.push(p);
    groups.set(key, g);
  }
  const made = [...groups.entries()]
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([, g]) => pairTable(g.settings, g.pairs));
  // the tables of one comparison are one family: Holm's adjustment over their p values
  const adjusted = holm(made.map((t) => t.test.p));
  return made.map((t, i) => ({ ...t, test: { ...t.test, holmP: adjusted[i] ?? t.test.p } }));
}

const stableJson = (o: Record<string, unknown>) =>
  JSON.stringify(Object.fromEntries(Object.entries(o).sort(([x], [y]) => (x < y ? -1 : 1))));

/** The comparison with its first group's fields on it too (see Comparison). */
function comparison(c: Omit<Comparison, keyof PairTable | 'groups'>, groups: PairTable[]): Comparison {
  return { ...(groups[0] ?? pairTable({}, [])), ...c, groups };
}

function copiedNote(groups: PairTable[]): string[] {
  const copied = groups.reduce((s, g) => s + g.copiedPairs, 0);
  const counted = groups.reduce((s, g) => s + g.pairs, 0);
  return copied > 0
    ? [
        `${copied} of ${counted + copied} pairs of runs repeat a counted pair exactly and are left out: ` +
          `${counted} pairs`,
      ]
    : [];
}

const leftOutNote = (left: UnpairedRuns) =>
  left.errors + left.wallClock + left.running === 0
    ? []
    : [
        `${left.errors + left.wallClock + left.running} pairs of runs left out: a side ended in error ` +
          `(${left.errors}), was stopped by the wall clock (${left.wallClock}) or is still running (${left.running})`,
      ];

export async function compareAgents(db: Sql, sweep: string, a: string, b: string): Promise<Comparison> {
  const [first, second] = a < b ? [a, b] : [b, a];
  // both reads at once: each evaluates the sweep's runs; the pairs wait (unread) while the labels are checked
  const paired = agentPairRows(db, sweep, first, second);
  paired.catch(() => undefined);
  const counts = await sweepLabelCounts(db, sweep);
  const labels = counts.map((r) => r.label);
  if (labels.length === 0) throw new InvalidInputError('sweep', sweep, `no runs in sweep "${sweep}"`);
  for (const [field, label] of [
    ['a', a],
    ['b', b],
  ] as const) {
    if (!labels.includes(label))
      throw new InvalidInputError(
        field,
        label,
        `agent "${label}" is not in sweep "${sweep}"; its agents are: ${labels.join(', ')}`,
      );
  }
  if (a === b) throw new InvalidInputError('b', b, 'compare two different agents');
  const swap = first !== a;
  const { rows, left } = await paired;
  if (rows.length === 0 && left.errors + left.wallClock + left.running === 0)
    throw new InvalidInputError(
      'sweep',
      sweep,
      `agents "${a}" and "${b}" share no maze, setting and repeat in sweep "${sweep}"`,
    );
  const pairs = rows.map((r) => ({
    maze: r.maze,
    settings: r.settings,
    okA: swap ? r.ok_b : r.ok_a,
    okB: swap ? r.ok_a : r.ok_b,
    effA: swap ? r.eff_b : r.eff_a,
    effB: swap ? r.eff_a : r.eff_b,
    runPairs: r.run_pairs,
    identicalA: swap ? r.identical_b : r.identical_a,
    identicalB: swap ? r.identical_a : r.identical_b,
    modelA: swap ? r.model_b : r.model_a,
    modelB: swap ? r.model_a : r.model_b,
  }));
  const groups = tables(pairs);
  const collapsed = new Map(
    [a, b].flatMap((label) => {
      const c = counts.find((r) => r.label === label)!;
      const note = repeatsNote({ label, runs: Number(c.runs), independent: Number(c.independent) }, c.repeats);
      return note === null ? [] : [[label, note] as const];
    }),
  );
  const notes = [...collapsed.values(), ...copiedNote(groups)];
  if (groups.every((g) => g.copiedPairs === 0) && collapsed.size === 1) {
    // one side is a copy each repeat, the other is not: each repeat is still a new pair
    const other = collapsed.has(a) ? b : a;
    const all = groups.reduce((s, g) => s + g.pairs, 0);
    notes.push(`all ${all} pairs count: each repeat of ${other} is an observation of its own`);
  }
  notes.push(...leftOutNote(left));
  return comparison({ sweep, a, b, notes }, groups);
}

/**
 * One agent under two values of one setting the sweep varies (e.g. observation rays vs full_map), paired on the
 * same maze, repeat and other settings; split by the other varied settings that reach the agent.
 */
export async function compareSettings(
  db: Sql,
  sweep: string,
  agent: string,
  factor: string,
  a: string,
  b: string,
): Promise<Comparison> {
  const ask: Ask = { sweep, agent, factor, a, b };
  const runs = await labelRuns(db, sweep, agent);
  if (runs.length === 0) {
    const labels = await sweepLabels(db, sweep);
    throw new InvalidInputError(
      'agent',
      agent,
      `agent "${agent}" is not in sweep "${sweep}"; its agents are: ${labels.join(', ')}`,
    );
  }
  refuseFactor(runs, ask);
  refuseValues(runs, ask);
  const { pairs, left } = pairRuns(runs, ask);
  if (pairs.length === 0 && left.errors + left.wallClock + left.running === 0)
    throw new InvalidInputError(
      'sweep',
      sweep,
      `agent "${agent}" has no runs under ${factor} ${a} and ${b} on the same maze, repeat and other settings`,
    );
  const groups = tables(pairs);
  return comparison({ sweep, a, b, agent, factor, notes: [...copiedNote(groups), ...leftOutNote(left)] }, groups);
}

/** What is compared: one agent's runs of a sweep under two values of one setting. */
interface Ask {
  sweep: string;
  agent: string;
  factor: string;
  a: string;
  b: string;
}

/** A factor the sweep does not vary, or that does not reach the agent, is refused naming what would do. */
function refuseFactor(runs: LabelRun[], { sweep, agent, factor, a, b }: Ask): void {
  const swept = [...new Set(runs.flatMap((r) => Object.keys(r.settings)))].sort();
  if (!swept.includes(factor))
    throw new InvalidInputError(
      'factor',
      factor,
      `sweep "${sweep}" does not vary "${factor}"; the settings it varies are: ${swept.join(', ') || 'none'}`,
    );
  if (!settingReaches(factor, runs[0].provider))
    throw new InvalidInputError(
      'factor',
      factor,
      `"${factor}" does not reach agent "${agent}" (a ${runs[0].provider} agent): its runs under ${a} and ${b} ` +
        'are the same runs; compare a setting that reaches it',
    );
}

/** The setting's value in a run, as the command line names it. */
function valueOf(r: LabelRun, factor: string): string {
  const v = r.settings[factor];
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Values the factor never takes, or the same value twice, are refused. */
function refuseValues(runs: LabelRun[], { sweep, factor, a, b }: Ask): void {
  const values = [...new Set(runs.map((r) => JSON.stringify(r.settings[factor])))];
  for (const [field, v] of [
    ['a', a],
    ['b', b],
  ] as const)
    if (!runs.some((r) => valueOf(r, factor) === v))
      throw new InvalidInputError(
        field,
        v,
        `"${v}" is not a value of ${factor} in sweep "${sweep}"; its values are: ${values.join(', ')}`,
      );
  if (a === b) throw new InvalidInputError('b', b, `compare two different values of ${factor}`);
}

/** A pair with the other settings its runs share. */
type SettingsPair = Pair & { settings: Record<string, unknown> };

/**
 * Each run under a paired with the run under b on the same maze, repeat and other settings; a pair whose runs share
 * their observations (copied runs) counts once. Pairs with a run that did not end in success or failure are left
 * out, counted by why.
 */
function pairRuns(runs: LabelRun[], { factor, a, b }: Ask): { pairs: SettingsPair[]; left: UnpairedRuns } {
  const without = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== factor));
  const keyOf = (r: LabelRun) => `${r.maze}|${r.repeat}|${stableJson(without(r.settings))}`;
  const sideB = new Map(runs.filter((r) => valueOf(r, factor) === b).map((r) => [keyOf(r), r]));
  const left: UnpairedRuns = { errors: 0, wallClock: 0, running: 0 };
  const seen = new Map<string, SettingsPair>();
  for (const x of runs.filter((r) => valueOf(r, factor) === a)) {
    const y = sideB.get(keyOf(x));
    if (!y) continue;
    const ok = (r: LabelRun) => r.outcome_class === 'success' || r.outcome_class === 'failure';
    if (!ok(x) || !ok(y)) {
      countLeftOut(left, x.outcome_class, y.outcome_class);
      continue;
    }
    const settings = without(x.factor_settings);
    const observation = [
      x.duplicate_of ?? x.experiment_id,
      y.duplicate_of ?? y.experiment_id,
      stableJson(settings),
    ].join('|');
    const p = seen.get(observation);
    if (p) p.runPairs++;
    else
      seen.set(observation, {
        maze: x.maze,
        settings,
        okA: x.goal_found,
        okB: y.goal_found,
        effA: x.efficiency,
        effB: y.efficiency,
        runPairs: 1,
        identicalA: x.identical_repeat,
        identicalB: y.identical_repeat,
        modelA: !x.deterministic,
        modelB: !y.deterministic,
      });
  }
  return { pairs: [...seen.values()], left };
}

/**
 * Lists of comparisons with every table's holmP adjusted over all of them (one family: a report's every paired
 * test), in the same shape and order.
 */
export function holmAcross(lists: Comparison[][]): Comparison[][] {
  const adjusted = holm(lists.flatMap((cs) => cs.flatMap((c) => c.groups.map((g) => g.test.p))));
  let i = 0;
  return lists.map((cs) =>
    cs.map((c) => {
      const groups = c.groups.map((g) => ({ ...g, test: { ...g.test, holmP: adjusted[i++] ?? g.test.p } }));
      return { ...c, ...groups[0], groups };
    }),
  );
}
