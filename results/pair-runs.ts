// The pairs of two agents' runs, by the rules of migration 011's sweep_run_pairs view, computed here from each run
// read once: a keyset page of the view re-evaluated its self-join of the whole sweep (7.9 s a page at 10,000 runs).
// Two runs pair when they share maze, cell settings (jsonb text) and repeat and both are a success or a failure;
// copies pair once (counted in run_pairs), settings are jsonb a || b, and pairs come in the view's order.

/** One run of a sweep as pairing reads it. */
export interface PairRun {
  experiment_id: string;
  label: string;
  cell_index: number;
  repeat: number;
  /** generator, size and seed */
  maze: string;
  /** The cell's settings as jsonb prints them: the join key of the view. */
  settings_key: string;
  factor_settings: Record<string, unknown>;
  /** The run it repeats when it is a copy, else itself. */
  observation: string;
  outcome_class: string;
  goal_found: boolean;
  efficiency: number | null;
  identical_repeat: boolean;
  deterministic: boolean;
  /** Its place among its label's runs by experiment id, in the database's collation (the view's ORDER BY). */
  id_order: number;
  /** A bundled simulator answered some of its calls; answered: a model answered any (experiments.simulated). */
  simulated?: boolean;
  answered?: boolean;
}

/**
 * Runs whose label's answered runs are both simulated and real carry `simulated (label)` among their factor
 * settings, so no comparison table pools the two (runs no model answered decide nothing): the statistics' rule.
 */
export function splitSimulated<
  T extends { simulated?: boolean; answered?: boolean; factor_settings: Record<string, unknown> },
>(runs: readonly T[], labelOf: (r: T) => string): T[] {
  const kinds = new Map<string, Set<boolean>>();
  for (const r of runs)
    if (r.answered) kinds.set(labelOf(r), (kinds.get(labelOf(r)) ?? new Set()).add(r.simulated === true));
  return runs.map((r) =>
    kinds.get(labelOf(r))?.size === 2
      ? { ...r, factor_settings: { ...r.factor_settings, [`simulated (${labelOf(r)})`]: r.simulated === true } }
      : r,
  );
}

/** A counted pair of two agents' runs (a copied pair stands for run_pairs of them), side a the first label. */
export interface AgentPairRow {
  experiment_a: string;
  experiment_b: string;
  maze: string;
  settings: Record<string, unknown>;
  ok_a: boolean;
  ok_b: boolean;
  eff_a: number | null;
  eff_b: number | null;
  run_pairs: number;
  identical_a: boolean;
  identical_b: boolean;
  model_a: boolean;
  model_b: boolean;
}

/** The two labels' run pairs left out: a side ended in error, else a side hit the wall clock, else one still runs. */
export interface UnpairedRuns {
  errors: number;
  wallClock: number;
  running: number;
}

/** Counts a pair left out under its first reason: a side in error, else stopped by the wall clock, else running. */
export function countLeftOut(left: UnpairedRuns, a: string, b: string): void {
  const sides = [a, b];
  if (sides.includes('error')) left.errors++;
  else if (sides.includes('wall_clock')) left.wallClock++;
  else if (sides.includes('running')) left.running++;
}

/** JSON with every object's keys sorted, at every depth: equal for values jsonb holds equal. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * jsonb's `a || b` of two objects: b's keys over a's, in jsonb's order (shorter keys first, then by their bytes), so
 * the settings read as the view gave them, key for key.
 */
function jsonbConcat(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...a, ...b };
  const keys = Object.keys(merged).sort(
    (x, y) => Buffer.byteLength(x) - Buffer.byteLength(y) || Buffer.compare(Buffer.from(x), Buffer.from(y)),
  );
  return Object.fromEntries(keys.map((k) => [k, merged[k]]));
}

const counted = (r: PairRun) => r.outcome_class === 'success' || r.outcome_class === 'failure';
const joinKey = (r: PairRun) => `${r.maze}\u0000${r.settings_key}\u0000${r.repeat}`;

/** Every run of label `second` by the view's join key (maze, settings, repeat). */
function byJoinKey(runs: readonly PairRun[], second: string): Map<string, PairRun[]> {
  const out = new Map<string, PairRun[]>();
  for (const r of runs) {
    if (r.label !== second) continue;
    const k = joinKey(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

interface Grouped {
  maze: string;
  /** The two observations. */
  x: string;
  y: string;
  settings: Record<string, unknown>;
  runPairs: number;
}

/**
 * The pairs of labels `first` and `second` among `runs` (every run of both, any outcome), in the view's order, and
 * the run pairs left out because a side ended in error, was stopped by the wall clock or still runs. `only` keeps
 * the pairs of some cells (one combination of settings) while a copy still finds the run it repeats in another.
 */
export function agentPairs(
  runs: readonly PairRun[],
  first: string,
  second: string,
  only: (r: PairRun) => boolean = () => true,
): { rows: AgentPairRow[]; left: UnpairedRuns } {
  const seconds = byJoinKey(runs, second);
  const observations = new Map(runs.filter(counted).map((r) => [r.experiment_id, r]));
  const left = { errors: 0, wallClock: 0, running: 0 };
  const groups = new Map<string, Grouped>();
  for (const a of runs) {
    if (a.label !== first || !only(a)) continue;
    for (const b of seconds.get(joinKey(a)) ?? []) {
      if (!counted(a) || !counted(b)) {
        countLeftOut(left, a.outcome_class, b.outcome_class);
        continue;
      }
      const settings = jsonbConcat(a.factor_settings, b.factor_settings);
      const key = [a.maze, canonicalJson(settings), a.observation, b.observation].join('\u0000');
      const g = groups.get(key);
      if (g) g.runPairs++;
      else groups.set(key, { maze: a.maze, x: a.observation, y: b.observation, settings, runPairs: 1 });
    }
  }
  // the view joins each pair to its observations' rows: one that is not a success or failure drops the pair
  const rows = [...groups.values()].flatMap(({ maze, x, y, settings, runPairs }) => {
    const [oa, ob] = [observations.get(x), observations.get(y)];
    return oa && ob ? [{ maze, oa, ob, settings, runPairs }] : [];
  });
  rows.sort((p, q) => p.oa.id_order - q.oa.id_order || p.ob.id_order - q.ob.id_order);
  return {
    rows: rows.map(({ maze, oa, ob, settings, runPairs }) => ({
      experiment_a: oa.experiment_id,
      experiment_b: ob.experiment_id,
      maze,
      settings,
      ok_a: oa.goal_found,
      ok_b: ob.goal_found,
      eff_a: oa.efficiency,
      eff_b: ob.efficiency,
      run_pairs: runPairs,
      identical_a: oa.identical_repeat,
      identical_b: ob.identical_repeat,
      model_a: !oa.deterministic,
      model_b: !ob.deterministic,
    })),
    left,
  };
}
