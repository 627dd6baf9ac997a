// Every experiment setting as one row, read from the config schema and its descriptions (setting-meta.ts): the
// flags of `run` and `launch`, `--set`, the sweep keys, --help and docs/settings.md are all made from these rows,
// so none of them can name a setting, a range or a default the schema does not have.
import type { z } from 'zod';
import { configSchemaFields, DEFAULT_CONFIG } from './experiment-config.ts';
import { SETTING_META, type SettingMeta } from './setting-meta.ts';

type SettingKind = 'integer' | 'number' | 'boolean' | 'choice' | 'text' | 'table';

export interface SettingRow extends SettingMeta {
  /** The dotted key: a config key, or section.key. */
  path: string;
  kind: SettingKind;
  min?: number;
  /** The minimum itself is refused (positive numbers). */
  minExclusive?: boolean;
  max?: number;
  choices?: ReadonlyArray<string | boolean>;
  /** The resolved default (undefined: none, or derived: see defaultText). */
  default?: unknown;
  /** The field alone, to check one value as the config would. */
  schema: z.ZodType;
}

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  options?: z.ZodType[];
  entries?: Record<string, string>;
}

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema under its optional, default and transform wrappers, and the first description met on the way. */
function unwrap(schema: z.ZodType): { bare: z.ZodType; meta?: SettingMeta } {
  let meta = SETTING_META.get(schema);
  let bare = schema;
  for (let def = defOf(bare); def.innerType || (def.type === 'pipe' && def.in); def = defOf(bare)) {
    bare = def.innerType ?? def.in!;
    meta ??= SETTING_META.get(bare);
  }
  return { bare, meta };
}

function kindOf(bare: z.ZodType): Pick<SettingRow, 'kind' | 'min' | 'minExclusive' | 'max' | 'choices'> {
  const def = defOf(bare);
  if (def.type === 'number') {
    const n = bare as z.ZodNumber;
    const checks = (n.def.checks ?? []).map((c) => c._zod.def as { check: string; inclusive?: boolean });
    const minExclusive = checks.some((c) => c.check === 'greater_than' && c.inclusive === false);
    return {
      kind: n.isInt ? 'integer' : 'number',
      min: n.minValue ?? undefined,
      max: n.maxValue ?? undefined,
      ...(minExclusive && { minExclusive }),
    };
  }
  if (def.type === 'boolean') return { kind: 'boolean' };
  if (def.type === 'enum') return { kind: 'choice', choices: Object.values(def.entries!) };
  if (def.type === 'union') {
    const choices = def.options!.flatMap(
      (o) => kindOf(o).choices ?? (defOf(o).type === 'boolean' ? [true, false] : []),
    );
    return { kind: 'choice', choices };
  }
  if (def.type === 'record') return { kind: 'table' };
  return { kind: 'text' };
}

function valueAt(path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], DEFAULT_CONFIG);
}

function rowsOf(shape: Record<string, z.ZodType>, prefix: string): SettingRow[] {
  return Object.entries(shape).flatMap(([key, field]) => {
    const path = prefix + key;
    const { bare, meta } = unwrap(field);
    const def = defOf(bare);
    if (def.type === 'object') return rowsOf(def.shape!, `${path}.`);
    if (!meta) throw new Error(`the config setting ${path} has no description: declare it with setting()`);
    const kind = kindOf(bare);
    const row: SettingRow = { ...meta, path, ...kind, schema: field };
    if (meta.defaultText === undefined && kind.kind !== 'table') row.default = valueAt(path);
    return [row];
  });
}

/** Every setting, in the schema's order; a section's settings under their dotted keys. */
export const SETTINGS: readonly SettingRow[] = rowsOf(configSchemaFields, '');

/** The settings that have a flag of their own; two sections may share one (--stream). */
export const FLAGGED_SETTINGS: readonly SettingRow[] = SETTINGS.filter((r) => r.flag !== undefined);

/** The provider a section's setting belongs to (ollama.host: ollama), or undefined for a shared one. */
export function providerOf(row: SettingRow): 'ollama' | 'bedrock' | 'openai' | undefined {
  const section = row.path.split('.')[0];
  return section === 'ollama' || section === 'bedrock' || section === 'openai' ? section : undefined;
}

/** The accepted values in words: "a whole number from 1 to 50", "one of: seen, reached". */
export function expectedText(row: SettingRow): string {
  if (row.kind === 'integer') return `a whole number from ${row.min} to ${row.max}`;
  if (row.kind === 'number')
    return row.minExclusive ? `a number over ${row.min}, at most ${row.max}` : `a number from ${row.min} to ${row.max}`;
  if (row.kind === 'choice') return `one of: ${row.choices!.join(', ')}`;
  if (row.kind === 'boolean') return 'true or false';
  if (row.kind === 'table') return 'a mapping by model id';
  return 'text';
}

/** The default in words: the derived rule, the value, or "none". */
export function defaultText(row: SettingRow): string {
  return (
    row.defaultText ?? (row.default === undefined ? 'not sent' : JSON.stringify(row.default).replace(/^"(.*)"$/, '$1'))
  );
}
