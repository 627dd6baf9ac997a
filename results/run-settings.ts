// The settings of a run, as a list of runs shows them: for the runs of one sweep, the settings that
// sweep varies (its cells' settings with more than one value) that reach the run's agent; for any other list, the
// settings of its config snapshot that differ from the defaults and reach its agent. What reaches which agent is
// migration 011's reaching_settings (reports/setting-reach.ts is the same list in TypeScript).
import type { Sql } from '../core/store/sql.ts';
import { DEFAULT_CONFIG, experimentConfigSchema } from '../core/config/experiment-config.ts';

/** A run's settings by dotted path (ollama.num_ctx), each with its value. */
export type RunSettings = Record<string, unknown>;

// the keys some cell of sweep $1 gives a value other cells do not: the settings the sweep varies
const VARIED_KEYS = `
  SELECT k.key FROM sweep_cells vc CROSS JOIN LATERAL jsonb_each(vc.settings) k
  WHERE vc.sweep_id = $1 GROUP BY k.key HAVING count(DISTINCT k.value) > 1`;

// a cell's varied settings that reach the agent of `provider`
const varied = (provider: string) => `
  coalesce((SELECT jsonb_object_agg(r.key, r.value) FROM jsonb_each(reaching_settings(${provider}, c.settings)) r
            WHERE r.key IN (${VARIED_KEYS})), '{}'::jsonb)`;

/**
 * The settings of each of `ids`: with `sweepId`, the settings that sweep varies (its runs are listed together, so
 * what they share says nothing); else every setting that differs from the defaults. Runs not found are left out.
 */
export async function settingsOfRuns(
  db: Sql,
  ids: readonly string[],
  sweepId?: string,
): Promise<Map<string, RunSettings>> {
  if (ids.length === 0) return new Map();
  if (sweepId !== undefined) {
    const { rows } = await db.query<{ experiment_id: string; settings: RunSettings }>(
      `SELECT e.id AS experiment_id, ${varied('e.provider')} AS settings
       FROM experiments e JOIN sweep_cells c ON c.sweep_id = e.sweep_id AND c.cell_index = e.sweep_cell
       WHERE e.sweep_id = $1 AND e.id = ANY($2::text[])`,
      [sweepId, ids],
    );
    return new Map(rows.map((r) => [r.experiment_id, r.settings]));
  }
  const { rows } = await db.query<{ experiment_id: string; config: Record<string, unknown> }>(
    `SELECT id AS experiment_id, reaching_settings(provider, config) AS config FROM experiments
     WHERE id = ANY($1::text[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.experiment_id, differingSettings(r.config)]));
}

/** Each cell of a sweep with the settings the sweep varies that reach its agent, by cell index. */
export async function variedSettingsOfCells(db: Sql, sweepId: string): Promise<Map<number, RunSettings>> {
  // a cell's agent kind as experiments.provider records it (core/machine/contracts.ts providerOf)
  const provider = "CASE WHEN c.agent IN ('ollama', 'bedrock', 'openai') THEN c.agent ELSE 'baseline' END";
  const { rows } = await db.query<{ cell_index: number; settings: RunSettings }>(
    `SELECT c.cell_index, ${varied(provider)} AS settings FROM sweep_cells c WHERE c.sweep_id = $1`,
    [sweepId],
  );
  return new Map(rows.map((r) => [r.cell_index, r.settings]));
}

/** Settings the schema derives from others when left out: their default is what it derives from the run's own. */
const DERIVED = ['max_turns', 'recall_tool'];

/** The leaves of a config snapshot (by dotted path) whose values differ from the defaults. */
export function differingSettings(config: Record<string, unknown>): RunSettings {
  const own = Object.fromEntries(Object.entries(config).filter(([k]) => !DERIVED.includes(k)));
  const derived = experimentConfigSchema.safeParse(own);
  const defaults: Record<string, unknown> = {
    ...DEFAULT_CONFIG,
    ...(derived.success
      ? Object.fromEntries(DERIVED.map((k) => [k, derived.data[k as keyof typeof derived.data]]))
      : {}),
  };
  const out: RunSettings = {};
  const walk = (value: unknown, base: unknown, path: string) => {
    if (isRecord(value) && (base === undefined || isRecord(base))) {
      for (const [k, v] of Object.entries(value))
        walk(v, isRecord(base) ? base[k] : undefined, path ? `${path}.${k}` : k);
    } else if (JSON.stringify(value) !== JSON.stringify(base)) out[path] = value;
  };
  walk(config, defaults, '');
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Settings as one line: `key=value` by key, space-separated ("" for none). */
export function settingsText(settings: RunSettings): string {
  return Object.keys(settings)
    .sort()
    .map((k) => {
      const v = settings[k];
      return `${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`;
    })
    .join(' ');
}
