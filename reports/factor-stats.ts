// A sweep's results grouped by any of its factors: the agent label, the maze, and any setting of the experiment
// config (observation, memory, vision_range, ollama.num_ctx, ...), read from each experiment's config snapshot so
// a factor counts what the run actually used. Success is over independent observations (a deterministic repeat
// is a copy, sweep_runs.independent), with its Wilson 95% interval, as sweep_stats reports it.
import type { Sql, SqlValue } from '../lambdas/store/sql.ts';
import { DEFAULT_CONFIG } from '../lambdas/config/experiment-config.ts';
import { InvalidInputError } from '../lambdas/engine/errors.ts';

/** Factors that are columns of sweep_runs rather than config settings. */
const RUN_COLUMNS: Record<string, string> = {
  label: 'r.label',
  agent: 'r.agent',
  model: 'r.model',
  maze_generator: 'r.maze_generator',
  maze_size: 'r.maze_size',
};

/** Config settings that are tables, not factors (a price per model is not a condition of the experiment). */
const NOT_FACTORS = new Set(['prices']);

/** Every setting of the config as a dotted path to a leaf (ollama.num_ctx), the factors a sweep can vary. */
function settingFactors(config: object = DEFAULT_CONFIG, prefix = ''): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(config) as Array<[string, unknown]>) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (NOT_FACTORS.has(path)) continue;
    if (value && typeof value === 'object' && !Array.isArray(value)) out.push(...settingFactors(value, path));
    else out.push(path);
  }
  return out;
}

export interface FactorRow {
  /** The group's value of each factor, by factor name. */
  [factor: string]: unknown;
  n: number;
  successes: number;
  n_independent: number;
  success_rate: number | null;
  success_low95: number | null;
  success_high95: number | null;
  mean_efficiency: number | null;
  mean_actions: number | null;
  tokens_per_experiment: number | null;
  cost_usd: number | null;
}

export function checkFactors(factors: string[]): void {
  const known = [...Object.keys(RUN_COLUMNS), ...settingFactors()];
  for (const f of factors)
    if (!known.includes(f))
      throw new InvalidInputError(
        '--by',
        f,
        `--by ${f}: not a factor; use any of ${known.join(', ')} (comma-separated, e.g. --by label,observation)`,
      );
}

/** The value of a dotted config path in a snapshot. */
const at = (config: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | null)?.[key] ?? null, config);

/** The factors that vary in a sweep: the label, the maze, and every setting whose snapshots differ. */
export async function varyingFactors(db: Sql, sweepId: string): Promise<string[]> {
  const { rows } = await db.query<{ config: unknown; label: string; maze_generator: string; maze_size: number }>(
    `SELECT DISTINCT e.config, r.label, r.maze_generator, r.maze_size
     FROM sweep_runs r JOIN experiments e ON e.id = r.experiment_id WHERE r.sweep_id = $1`,
    [sweepId],
  );
  const varies = (values: unknown[]) => new Set(values.map((v) => JSON.stringify(v))).size > 1;
  const columns = ['label', 'maze_generator', 'maze_size'].filter(
    (c, i) => i === 0 || varies(rows.map((r) => r[c as keyof (typeof rows)[0]])),
  );
  const configs = rows.map((r) => (typeof r.config === 'string' ? JSON.parse(r.config) : r.config) as unknown);
  return [...columns, ...settingFactors().filter((f) => varies(configs.map((c) => at(c, f))))];
}

export async function factorStats(db: Sql, sweepId: string, factors: string[]): Promise<FactorRow[]> {
  checkFactors(factors);
  const params: SqlValue[] = [sweepId];
  // a setting's path is a parameter (text[]), never SQL text; the output name is the factor itself, checked above
  const exprs = factors.map((f) => {
    if (RUN_COLUMNS[f]) return `${RUN_COLUMNS[f]} AS "${f}"`;
    params.push(f.split('.'));
    return `e.config #>> $${params.length}::text[] AS "${f}"`;
  });
  const groups = factors.map((_, i) => String(i + 1)).join(', ');
  const { rows } = await db.query<FactorRow>(
    `SELECT ${exprs.join(', ')},
       count(*)::int AS n,
       (count(*) FILTER (WHERE r.goal_found))::int AS successes,
       (count(*) FILTER (WHERE r.independent))::int AS n_independent,
       round((count(*) FILTER (WHERE r.goal_found AND r.independent))::numeric
             / nullif(count(*) FILTER (WHERE r.independent), 0), 4)::float8 AS success_rate,
       round(wilson_low(count(*) FILTER (WHERE r.goal_found AND r.independent),
                        count(*) FILTER (WHERE r.independent))::numeric, 4)::float8 AS success_low95,
       round(wilson_high(count(*) FILTER (WHERE r.goal_found AND r.independent),
                         count(*) FILTER (WHERE r.independent))::numeric, 4)::float8 AS success_high95,
       round(avg(r.efficiency)::numeric, 4)::float8 AS mean_efficiency,
       round(avg(r.actions)::numeric, 1)::float8 AS mean_actions,
       round(avg(coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0))::numeric, 1)::float8
         AS tokens_per_experiment,
       round(sum(r.cost_usd)::numeric, 6)::float8 AS cost_usd
     FROM sweep_runs r JOIN experiments e ON e.id = r.experiment_id
     WHERE r.sweep_id = $1
     GROUP BY ${groups} ORDER BY ${groups}`,
    params,
  );
  return rows;
}
