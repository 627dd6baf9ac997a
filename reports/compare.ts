// Paired comparisons within a sweep, on the same maze and repeat, split by every other setting the sweep varies:
// two agents (compareAgents: same cell settings), or two values of one setting for one agent (compareSettings:
// observation rays vs full_map). Each gives the 2x2 table of outcomes with McNemar's exact test, and maze-clustered
// bootstrap intervals (reports/bootstrap.ts: mazes resampled, every pair of a maze kept; seeded) of the success
// difference and of the mean efficiency difference over pairs both solved. Only successes and failures pair: a pair
// with a side that ended in error or still runs is left out and counted in the notes. Pairs of runs that exactly
// repeat a deterministic pair (same trajectories) count once, and the notes say so.
import type { Sql } from '../lambdas/store/sql.ts';
import { agentPairRows, labelRuns, sweepLabelCounts, sweepLabels, type LabelRun } from '../results/sweep-pairs.ts';
import { InvalidInputError } from '../lambdas/engine/errors.ts';
import { clusterBootstrap, clusterSums } from './bootstrap.ts';
import { repeatsNote } from './repeats.ts';
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
  mcnemarP: number;
  /** Run pairs left out because they repeat a counted pair exactly (deterministic repeats). */
  copiedPairs: number;
  /** Mazes among the pairs: the clusters of the bootstrap. */
  mazes: number;
  /**
   * Per side, the pairs whose run is a model run that walked the same path as another repeat of its cell
   * (identical), of the pairs whose run is a model run (of): shown as "2 of 5 repeats identical"; they still count.
   */
  identicalRepeats: { a: number; b: number; ofA: number; ofB: number };
  /** Success of a minus success of b over the pairs, with its clustered bootstrap interval. */
  successDiff: { diff: number | null; low95: number | null; high95: number | null };
  efficiency: {
    pairs: number;
    meanDiff: number | null;
    low95: number | null;
    high95: number | null;
    resamples: number;
  };
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
  resamples: number;
  seed: number;
}

/** A counted pair: its maze (the bootstrap's cluster), both outcomes, and how many run pairs it stands for. */
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

function lnChoose(n: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log((n - k + i) / i);
  return s;
}

/** Exact two-sided McNemar test on the discordant pairs: min(1, 2 P(X <= min(b, c))), X ~ Binomial(b + c, 1/2). */
function mcnemarExactP(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  let tail = 0;
  for (let i = 0; i <= Math.min(b, c); i++) tail += Math.exp(lnChoose(n, i) - n * Math.LN2);
  return Math.min(1, 2 * tail);
}

function pairTable(settings: Record<string, unknown>, pairs: Pair[], resamples: number, seed: number): PairTable {
  const count = (f: (p: Pair) => boolean) => pairs.filter(f).length;
  const onlyA = count((p) => p.okA && !p.okB);
  const onlyB = count((p) => p.okB && !p.okA);
  const solved = pairs.filter((p) => p.okA && p.okB && p.effA !== null && p.effB !== null);
  const diffs = clusterSums(
    pairs,
    (p) => p.maze,
    (p) => ({ num: Number(p.okA) - Number(p.okB), den: 1 }),
  );
  const effDiffs = clusterSums(
    solved,
    (p) => p.maze,
    (p) => ({ num: p.effA! - p.effB!, den: 1 }),
  );
  const success = clusterBootstrap(diffs, resamples, seed);
  const eff = clusterBootstrap(effDiffs, resamples, seed);
  return {
    settings,
    pairs: pairs.length,
    bothSolved: count((p) => p.okA && p.okB),
    onlyA,
    onlyB,
    neither: count((p) => !p.okA && !p.okB),
    mcnemarP: mcnemarExactP(onlyA, onlyB),
    copiedPairs: pairs.reduce((s, p) => s + p.runPairs - 1, 0),
    mazes: diffs.length,
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
    efficiency: {
      pairs: solved.length,
      meanDiff: solved.length === 0 ? null : solved.reduce((s, p) => s + p.effA! - p.effB!, 0) / solved.length,
      low95: eff?.low ?? null,
      high95: eff?.high ?? null,
      resamples,
    },
  };
}

/** Pairs grouped by their settings (as JSON with sorted keys), in a stable order. */
function tables(
  pairs: Array<Pair & { settings: Record<string, unknown> }>,
  resamples: number,
  seed: number,
): PairTable[] {
  const groups = new Map<string, { settings: Record<string, unknown>; pairs: Pair[] }>();
  for (const p of pairs) {
    const key = stableJson(p.settings);
    const g = groups.get(key) ?? { settings: p.settings, pairs: [] };
    g.pairs.push(p);
    groups.set(key, g);
  }
  return [...groups.entries()]
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([, g]) => pairTable(g.settings, g.pairs, resamples, seed));
}

const stableJson = (o: Record<string, unknown>) =>
  JSON.stringify(Object.fromEntries(Object.entries(o).sort(([x], [y]) => (x < y ? -1 : 1))));

/** The comparison with its first group's fields on it too (see Comparison). */
function comparison(c: Omit<Comparison, keyof PairTable | 'groups'>, groups: PairTable[]): Comparison {
  return { ...(groups[0] ?? pairTable({}, [], c.resamples, c.seed)), ...c, groups };
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

const leftOutNote = (left: { errors: number; running: number }) =>
  left.errors + left.running === 0
    ? []
    : [
        `${left.errors + left.running} pairs of runs left out: a side ended in error (${left.errors}) or is still ` +
          `running (${left.running})`,
      ];

export async function compareAgents(
  db: Sql,
  sweep: string,
  a: string,
  b: string,
  resamples = 10_000,
  seed = 1,
): Promise<Comparison> {
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
  if (rows.length === 0 && left.errors + left.running === 0)
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
  const groups = tables(pairs, resamples, seed);
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
  return comparison({ sweep, a, b, notes, resamples, seed }, groups);
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
  resamples = 10_000,
  seed = 1,
): Promise<Comparison> {
  const runs = await labelRuns(db, sweep, agent);
  if (runs.length === 0) {
    const labels = await sweepLabels(db, sweep);
    throw new InvalidInputError(
      'agent',
      agent,
      `agent "${agent}" is not in sweep "${sweep}"; its agents are: ${labels.join(', ')}`,
    );
  }
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
  const values = [...new Set(runs.map((r) => JSON.stringify(r.settings[factor])))];
  const valueOf = (r: LabelRun) => {
    const v = r.settings[factor];
    return typeof v === 'string' ? v : JSON.stringify(v);
  };
  for (const [field, v] of [
    ['a', a],
    ['b', b],
  ] as const)
    if (!runs.some((r) => valueOf(r) === v))
      throw new InvalidInputError(
        field,
        v,
        `"${v}" is not a value of ${factor} in sweep "${sweep}"; its values are: ${values.join(', ')}`,
      );
  if (a === b) throw new InvalidInputError('b', b, `compare two different values of ${factor}`);
  const without = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== factor));
  const keyOf = (r: LabelRun) => `${r.maze}|${r.repeat}|${stableJson(without(r.settings))}`;
  const sideB = new Map(runs.filter((r) => valueOf(r) === b).map((r) => [keyOf(r), r]));
  const left = { errors: 0, running: 0 };
  const seen = new Map<string, Pair & { settings: Record<string, unknown> }>();
  for (const x of runs.filter((r) => valueOf(r) === a)) {
    const y = sideB.get(keyOf(x));
    if (!y) continue;
    const ok = (r: LabelRun) => r.outcome_class === 'success' || r.outcome_class === 'failure';
    if (!ok(x) || !ok(y)) {
      if ([x.outcome_class, y.outcome_class].includes('error')) left.errors++;
      else left.running++;
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
  if (seen.size === 0 && left.errors + left.running === 0)
    throw new InvalidInputError(
      'sweep',
      sweep,
      `agent "${agent}" has no runs under ${factor} ${a} and ${b} on the same maze, repeat and other settings`,
    );
  const groups = tables([...seen.values()], resamples, seed);
  return comparison(
    { sweep, a, b, agent, factor, notes: [...copiedNote(groups), ...leftOutNote(left)], resamples, seed },
    groups,
  );
}
