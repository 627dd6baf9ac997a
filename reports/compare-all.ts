// `ariadne compare SWEEP --all`: every pair of the sweep's agents, paired as compare pairs two (same maze, settings
// and repeat; copies once; errors out), within each combination of the sweep's other settings, and the agents ranked
// in tie groups (agent-ranking.ts). Each combination is one family: Holm's adjustment runs over its pairs.
import type { Sql } from '../core/store/sql.ts';
import { InvalidInputError } from '../core/errors.ts';
import { agentPairs, type PairRun } from '../results/pair-runs.ts';
import { sweepLabelCounts, sweepPairRuns } from '../results/sweep-pairs.ts';
import { rankAgents, type AgentCounts, type AgentRanking, type PairMazes } from './agent-ranking.ts';
import { mazePairs } from './compare.ts';
import { repeatsNote } from './repeats.ts';

/** One combination of the sweep's other settings: its pairs, their tests and the ranking. */
export interface RankingGroup extends AgentRanking {
  /** The cell settings the group's runs share ({} when the sweep varies none). */
  settings: Record<string, unknown>;
}

export interface AllPairsComparison {
  sweep: string;
  /** The agents ranked: the sweep's labels (a label with both simulated and model-answered runs split in two). */
  agents: string[];
  alpha: number;
  groups: RankingGroup[];
  /** How repeats were counted, in words; empty when every run is its own observation. */
  notes: string[];
}

const counted = (r: PairRun) => r.outcome_class === 'success' || r.outcome_class === 'failure';

/** A label whose runs splitSimulated split is two agents here, so no ranking pools simulated and real answers. */
function agentOf(r: PairRun): string {
  const simulated = r.factor_settings[`simulated (${r.label})`];
  if (simulated === undefined) return r.label;
  return `${r.label} (${simulated === true ? 'simulated' : 'model'})`;
}

/** Each agent's successes and observations (copies once, errors out) per maze among `runs`. */
function agentCounts(runs: readonly PairRun[], agents: readonly string[]): AgentCounts[] {
  return agents.map((agent) => {
    const byMaze = new Map<string, Map<string, boolean>>();
    for (const r of runs)
      if (r.label === agent && counted(r))
        byMaze.set(r.maze, (byMaze.get(r.maze) ?? new Map<string, boolean>()).set(r.observation, r.goal_found));
    const mazes = [...byMaze].map(([maze, seen]) => ({
      maze,
      successes: [...seen.values()].filter(Boolean).length,
      runs: seen.size,
    }));
    return { agent, mazes };
  });
}

/** Every pair of agents (a before b by name) within the cells whose settings are `key`. */
function groupPairs(runs: readonly PairRun[], agents: readonly string[], key: string): PairMazes[] {
  return agents.flatMap((a, i) =>
    agents.slice(i + 1).map((b) => {
      const { rows } = agentPairs(runs, a, b, (r) => r.settings_key === key);
      return { a, b, mazes: mazePairs(rows.map((r) => ({ maze: r.maze, okA: r.ok_a, okB: r.ok_b }))) };
    }),
  );
}

/** Runs of the group that did not end in success or failure, by agent: they pair with nothing. */
function leftOutNote(runs: readonly PairRun[]): string[] {
  const left = new Map<string, number>();
  for (const r of runs) if (!counted(r)) left.set(r.label, (left.get(r.label) ?? 0) + 1);
  if (left.size === 0) return [];
  const each = [...left].map(([agent, n]) => `${agent} ${n}`).join(', ');
  return [`runs left out (ended in error, stopped by the wall clock or still running): ${each}`];
}

function rankGroup(runs: readonly PairRun[], agents: readonly string[], key: string, alpha: number): RankingGroup {
  const inGroup = runs.filter((r) => r.settings_key === key);
  const ranking = rankAgents(agentCounts(inGroup, agents), groupPairs(runs, agents, key), alpha);
  const settings = JSON.parse(key) as Record<string, unknown>;
  return { settings, ...ranking, notes: [...ranking.notes, ...leftOutNote(inGroup)] };
}

/** The runs of `agent` relabelled by their value of `factor`, grouped by their other settings: values as agents. */
function byValue(runs: readonly PairRun[], agent: string, factor: string): PairRun[] {
  return runs.flatMap((r) => {
    const settings = JSON.parse(r.settings_key) as Record<string, unknown>;
    if (r.label !== agent || !(factor in settings)) return [];
    const { [factor]: value, ...rest } = settings;
    const label = `${factor}=${typeof value === 'string' ? value : JSON.stringify(value)}`;
    return [{ ...r, label, settings_key: JSON.stringify(rest) }];
  });
}

/**
 * Every pair of the sweep's agents tested and the agents ranked, per combination of its other settings; with
 * `values` ({ agent, factor }), every pair of the values of one setting for one agent, ranked the same way.
 */
export async function compareAllAgents(
  db: Sql,
  sweep: string,
  alpha = 0.05,
  values?: { agent: string; factor: string },
): Promise<AllPairsComparison> {
  const [read, counts] = await Promise.all([sweepPairRuns(db, sweep), sweepLabelCounts(db, sweep)]);
  if (read.length === 0) throw new InvalidInputError('sweep', sweep, `no runs in sweep "${sweep}"`);
  const runs = values ? byValue(read, values.agent, values.factor) : read.map((r) => ({ ...r, label: agentOf(r) }));
  if (values && runs.length === 0)
    throw new InvalidInputError(
      '--factor',
      values.factor,
      `sweep "${sweep}" varies no setting ${values.factor} for ${values.agent}: name one the sweep varies`,
    );
  const agents = [...new Set(runs.map((r) => r.label))].sort();
  if (agents.length < 2)
    throw new InvalidInputError(
      'sweep',
      sweep,
      `sweep "${sweep}" has one agent (${agents[0]}): --all compares two or more; compare settings with ` +
        `--agent ${agents[0]} --factor SETTING V1 V2`,
    );
  const keys = [...new Set(runs.map((r) => r.settings_key))].sort();
  const notes = counts.flatMap((c) => {
    const note = repeatsNote({ label: c.label, runs: Number(c.runs), independent: Number(c.independent) }, c.repeats);
    return note === null ? [] : [note];
  });
  return { sweep, agents, alpha, groups: keys.map((k) => rankGroup(runs, agents, k, alpha)), notes };
}
