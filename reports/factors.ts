// The factors a sweep's statistics can be split by: the agent label, agent, model, maze generator and size, whether a
// bundled simulator answered the run (simulated: always split when a sweep has both kinds), and any setting of the
// config (a dotted path: ollama.num_ctx), read from each run's config snapshot so a group counts what the run
// actually used. A setting that does not reach a run's agent (reports/setting-reach.ts) is not
// applicable to it: its value is NOT_APPLICABLE, so its runs merge instead of splitting by a value they never read.
import type { Sql } from '../core/store/sql.ts';
import { sweepRunConditions } from '../results/sweep-conditions.ts';
import { RUN_FACTORS } from '../results/statistics-runs.ts';
import { sweepMixesSimulated } from '../results/run-marks.ts';
import { DEFAULT_CONFIG, settingPaths } from '../core/config/experiment-config.ts';
import { InvalidInputError } from '../core/errors.ts';
import { settingReaches } from './setting-reach.ts';

/** A setting's value for a run whose agent it does not reach. */
export const NOT_APPLICABLE = 'n/a';

/** Config settings that are tables, not factors (a price per model is not a condition of the experiment). */
const NOT_FACTORS = new Set(['prices']);

/** The leaves of a config object as dotted paths (the defaults' tables keyed by model: context_windows.<id>). */
function leafPaths(config: object, prefix = ''): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(config) as Array<[string, unknown]>) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (NOT_FACTORS.has(path)) continue;
    if (value && typeof value === 'object' && !Array.isArray(value)) out.push(...leafPaths(value, path));
    else out.push(path);
  }
  return out;
}

/**
 * Every setting of the config as a dotted path to a leaf (ollama.num_ctx), the factors a sweep can vary: the
 * schema's settings, the optional ones without a default included (top_p, ollama.think, openai.reasoning_effort:
 * read from the defaults alone, a sweep over one of them was pooled), then the defaults' table entries.
 */
function settingFactors(): string[] {
  return [...new Set([...settingPaths(), ...leafPaths(DEFAULT_CONFIG)])];
}

export function checkFactors(factors: string[]): void {
  const known = [...RUN_FACTORS, ...settingFactors()];
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

/**
 * The factors that vary in a sweep: the label, the maze generator and size where more than one, and every setting
 * whose values differ among the runs it reaches (ollama.host differing between model agents is a factor; the
 * default host in a baseline's snapshot is not a value of it).
 */
export async function varyingFactors(db: Sql, sweepId: string): Promise<string[]> {
  const rows = await sweepRunConditions(db, sweepId);
  const varies = (values: unknown[]) => new Set(values.map((v) => JSON.stringify(v))).size > 1;
  const columns = ['label', 'maze_generator', 'maze_size'].filter(
    (c, i) => i === 0 || varies(rows.map((r) => r[c as keyof (typeof rows)[0]])),
  );
  const configs = rows.map((r) => ({
    provider: r.provider,
    config: (typeof r.config === 'string' ? JSON.parse(r.config) : r.config) as unknown,
  }));
  return apartFromSimulated(db, sweepId, [
    ...columns,
    ...settingFactors().filter((f) =>
      varies(configs.filter((c) => settingReaches(f, c.provider)).map((c) => at(c.config, f))),
    ),
  ]);
}

/**
 * The factors with `simulated` added when the sweep has both runs a bundled simulator answered and real ones
 * (migration 029): like a varied factor it splits the groups, so no row pools a simulator's answers with a model's.
 */
export async function apartFromSimulated(db: Sql, sweepId: string, factors: string[]): Promise<string[]> {
  if (factors.includes('simulated') || !(await sweepMixesSimulated(db, sweepId))) return factors;
  return [...factors, 'simulated'];
}

/**
 * A run's value of a factor as results/statistics-runs.ts reads it (a run column, or the setting's text in the
 * run's snapshot): NOT_APPLICABLE where the setting does not reach its agent.
 */
export function factorValue(factor: string, raw: unknown, provider: string): unknown {
  if (RUN_FACTORS.includes(factor)) return raw;
  return settingReaches(factor, provider) ? raw : NOT_APPLICABLE;
}
