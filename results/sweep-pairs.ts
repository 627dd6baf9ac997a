// The runs a sweep's paired comparisons count (reports/compare.ts): each agent's runs and observations, the pairs
// of two agents on the same maze, settings and repeat (migration 011's sweep_run_pairs), the pairs left out, and
// one agent's runs to pair by a setting's values. Read in keyset pages where they grow with the sweep (the Data
// API's 1 MiB a response).
import type { Sql } from '../lambdas/store/sql.ts';
import { readPaged } from '../lambdas/store/pages.ts';

/** One agent label's finished runs and observations, with the sweep's repeats; the counts may arrive as text. */
export interface LabelCounts {
  label: string;
  runs: unknown;
  independent: unknown;
  repeats: number;
}

/** Each agent label of the sweep with its successes and failures (runs) and observations, by label. */
export async function sweepLabelCounts(db: Sql, sweep: string): Promise<LabelCounts[]> {
  const { rows } = await db.query<LabelCounts>(
    `SELECT label, count(*) FILTER (WHERE outcome_class IN ('success', 'failure')) AS runs,
            count(*) FILTER (WHERE independent) AS independent, (SELECT repeats FROM sweeps WHERE id = $1) AS repeats
     FROM sweep_runs WHERE sweep_id = $1 GROUP BY label ORDER BY label`,
    [sweep],
  );
  return rows;
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

/** The pairs of labels `first` and `second` (first < second, as the view orders them), by their experiments. */
export function agentPairRows(db: Sql, sweep: string, first: string, second: string): Promise<AgentPairRow[]> {
  return readPaged<AgentPairRow>(
    async (last, limit) =>
      (
        await db.query<AgentPairRow>(
          `SELECT experiment_a, experiment_b, maze_generator || ' ' || maze_size || ' ' || maze_seed AS maze, settings,
                  ok_a, ok_b, eff_a::float8 AS eff_a, eff_b::float8 AS eff_b, run_pairs::int AS run_pairs,
                  identical_a, identical_b, model_a, model_b
           FROM sweep_run_pairs
           WHERE sweep_id = $1 AND label_a = $2 AND label_b = $3 AND (experiment_a, experiment_b) > ($4::text, $5::text)
           ORDER BY experiment_a, experiment_b LIMIT $6`,
          [sweep, first, second, last?.experiment_a ?? '', last?.experiment_b ?? '', limit],
        )
      ).rows,
  );
}

/** The two labels' run pairs left out: a side ended in error, else a side hit the wall clock, else one still runs. */
export async function unpairedRuns(
  db: Sql,
  sweep: string,
  first: string,
  second: string,
): Promise<{ errors: number; wallClock: number; running: number }> {
  const { rows } = await db.query<{ errors: number; wall_clock: number; running: number }>(
    `SELECT (count(*) FILTER (WHERE 'error' IN (x.outcome_class, y.outcome_class)))::int AS errors,
            (count(*) FILTER (WHERE 'wall_clock' IN (x.outcome_class, y.outcome_class)
                                AND 'error' NOT IN (x.outcome_class, y.outcome_class)))::int AS wall_clock,
            (count(*) FILTER (WHERE 'running' IN (x.outcome_class, y.outcome_class)
                                AND 'error' NOT IN (x.outcome_class, y.outcome_class)
                                AND 'wall_clock' NOT IN (x.outcome_class, y.outcome_class)))::int AS running
     FROM sweep_runs x JOIN sweep_runs y ON y.sweep_id = x.sweep_id AND y.label = $3
       AND y.maze_generator = x.maze_generator AND y.maze_size = x.maze_size AND y.maze_seed = x.maze_seed
       AND y.settings::text = x.settings::text AND y.repeat = x.repeat
     WHERE x.sweep_id = $1 AND x.label = $2`,
    [sweep, first, second],
  );
  const r = rows[0];
  return { errors: Number(r.errors), wallClock: Number(r.wall_clock), running: Number(r.running) };
}

/** One run of an agent, as a comparison of two values of one setting pairs it. */
export interface LabelRun {
  experiment_id: string;
  duplicate_of: string | null;
  provider: string;
  maze: string;
  repeat: number;
  /** Its cell's settings, as the sweep file gave them. */
  settings: Record<string, unknown>;
  /** Those of its cell's settings that reach its agent. */
  factor_settings: Record<string, unknown>;
  outcome_class: string;
  goal_found: boolean;
  efficiency: number | null;
  identical_repeat: boolean;
  deterministic: boolean;
  cell_index: number;
}

/** Every run of the agent labelled `label` in the sweep, by cell and repeat. */
export function labelRuns(db: Sql, sweep: string, label: string): Promise<LabelRun[]> {
  return readPaged<LabelRun>(
    async (last, limit) =>
      (
        await db.query<LabelRun>(
          `SELECT experiment_id, duplicate_of, provider, maze_generator || ' ' || maze_size || ' ' || maze_seed AS maze,
                  repeat, settings, factor_settings, outcome_class, goal_found, efficiency::float8 AS efficiency,
                  identical_repeat, deterministic, cell_index
           FROM sweep_runs WHERE sweep_id = $1 AND label = $2 AND (cell_index, repeat) > ($3::int, $4::int)
           ORDER BY cell_index, repeat LIMIT $5`,
          [sweep, label, last?.cell_index ?? -1, last?.repeat ?? -1, limit],
        )
      ).rows,
  );
}

/** The sweep's agent labels, in order. */
export async function sweepLabels(db: Sql, sweep: string): Promise<string[]> {
  const { rows } = await db.query<{ label: string }>(
    'SELECT DISTINCT label FROM sweep_runs WHERE sweep_id = $1 ORDER BY 1',
    [sweep],
  );
  return rows.map((r) => r.label);
}
