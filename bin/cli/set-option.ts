// `ariadne run --set key=value`: any experiment setting on the command line, for a one-off that needs no edit of
// the tracked config/parameters.yaml. Keys are the config's own (dotted for a section's field), values YAML
// scalars, both checked by the schema that checks the parameters file, so a bad one fails the same way.
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { InvalidInputError } from '../../core/errors.ts';
import { partialConfigSchema, type ExperimentConfigInput } from '../../core/config/experiment-config.ts';
import { isForbiddenKey } from '../../core/config/forbidden-keys.ts';
import { firstProblem } from '../../core/config/zod-errors.ts';
import { FLAGGED_SETTINGS } from '../../core/config/settings-table.ts';
import { optionKey } from './options.ts';

type Schema = z.ZodType & { def: { type: string; innerType?: Schema; in?: Schema; valueType?: Schema } };

/** The schema under optional, default and transform wrappers: an object, a record, or a value. */
function bare(schema: Schema): Schema {
  const d = schema.def;
  const inner = d.innerType ?? (d.type === 'pipe' ? d.in : undefined);
  return inner ? bare(inner) : schema;
}

const fieldsOf = (schema: Schema) => Object.keys((schema as unknown as z.ZodObject).shape);

/** Every key --set takes, as written; a record's entries with their id as <model> or <provider:model>. */
function validKeys(): string[] {
  const keys: string[] = [];
  for (const [key, field] of Object.entries(partialConfigSchema.shape) as Array<[string, Schema]>) {
    keys.push(key);
    const s = bare(field);
    if (s.def.type === 'object') keys.push(...fieldsOf(s).map((f) => `${key}.${f}`));
    if (s.def.type === 'record') {
      const value = bare(s.def.valueType!);
      const id = key === 'rate_limits' ? '<provider:model>' : '<model>';
      if (value.def.type === 'object') keys.push(...fieldsOf(value).map((f) => `${key}.${id}.${f}`));
      else keys.push(`${key}.${id}`);
    }
  }
  return keys;
}

/** The config path a dotted key names, or null: a record's id may itself hold dots (model ids do). */
function pathOf(key: string): string[] | null {
  const [section, ...rest] = key.split('.');
  const field = (partialConfigSchema.shape as Record<string, Schema>)[section];
  if (!Object.hasOwn(partialConfigSchema.shape, section) || !field) return null;
  if (rest.length === 0) return [section];
  const s = bare(field);
  if (s.def.type === 'object') return rest.length === 1 && fieldsOf(s).includes(rest[0]) ? [section, rest[0]] : null;
  if (s.def.type !== 'record') return null;
  const value = bare(s.def.valueType!);
  if (value.def.type !== 'object') return [section, rest.join('.')];
  // <id>.<field>, or the whole entry <id> (its value a YAML mapping)
  const last = rest.at(-1)!;
  return rest.length > 1 && fieldsOf(value).includes(last)
    ? [section, rest.slice(0, -1).join('.'), last]
    : [section, rest.join('.')];
}

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

/** The valid keys a mistyped one most likely meant: near in spelling, or sharing its last part. */
function closeKeys(key: string): string[] {
  const last = key.split('.').at(-1)!;
  return validKeys()
    .map((k) => ({ k, d: Math.min(distance(key, k), k.split('.').at(-1) === last ? 1 : Infinity) }))
    .filter(({ k, d }) => d <= Math.max(2, Math.floor(k.length / 4)))
    .sort((a, b) => a.d - b.d || a.k.localeCompare(b.k))
    .slice(0, 5)
    .map(({ k }) => k);
}

/** `value` at `path` of a config being built, its sections made as needed. */
export function setAt(config: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = config;
  for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[path.at(-1)!] = value;
}

/** Settings with a flag of their own: given with a --set of the same setting, both are refused. */
const FLAGS = FLAGGED_SETTINGS.map((r) => ({ setting: r.path, option: optionKey(r.flag!), flag: r.flag! }));

/** The flag given on the command line that sets what `path` sets (the same setting, or a field of its section). */
function flagFor(path: string[], given: ReadonlySet<string>): string | undefined {
  const key = path.join('.');
  for (const { setting, option, flag } of FLAGS)
    if (given.has(option) && (setting === key || setting.startsWith(`${key}.`))) return flag;
  if (key === 'prompt_version' && given.has('workflow')) return '--workflow';
  return undefined;
}

/**
 * The settings the --set options give, as a partial config (the request's config layer: it overrides the
 * parameters file, as every option does). `given`: the option keys given on the command line, whose own flag and a
 * --set of the same setting are refused together rather than one silently winning.
 */
export function settingsFromSet(sets: readonly string[], given: ReadonlySet<string>): ExperimentConfigInput {
  const out: Record<string, unknown> = {};
  const seen = new Map<string, string>();
  for (const raw of sets) {
    const eq = raw.indexOf('=');
    const key = (eq < 0 ? raw : raw.slice(0, eq)).trim();
    if (eq < 0 || key === '')
      throw new InvalidInputError('--set', raw, `--set "${raw}" is not key=value; e.g. --set vision_range=5`);
    const path = key.split('.').some(isForbiddenKey) ? null : pathOf(key);
    if (!path) {
      const close = closeKeys(key);
      throw new InvalidInputError(
        '--set',
        raw,
        `--set ${key}: no experiment setting is called "${key}"; ` +
          (close.length > 0
            ? `did you mean: ${close.join(', ')}?`
            : `the settings are: ${Object.keys(partialConfigSchema.shape).join(', ')}`) +
          ' (docs/settings.md)',
      );
    }
    const text = raw.slice(eq + 1);
    if (text.trim() === '')
      throw new InvalidInputError('--set', raw, `--set ${key}= has no value; write --set ${key}=<value>`);
    let value: unknown;
    try {
      value = parseYaml(text);
    } catch (err) {
      throw new InvalidInputError(
        '--set',
        raw,
        `--set ${key}: "${text}" is not a YAML value: ${(err as Error).message}`,
      );
    }
    const dotted = path.join('.');
    for (const [other, otherRaw] of seen)
      if (other === dotted || other.startsWith(`${dotted}.`) || dotted.startsWith(`${other}.`))
        throw new InvalidInputError('--set', raw, `--set ${otherRaw} and --set ${raw} both set ${other}; drop one`);
    const flag = flagFor(path, given);
    if (flag)
      throw new InvalidInputError(
        '--set',
        raw,
        `--set ${raw} and ${flag} both set ${dotted}; drop one (neither silently wins over the other)`,
      );
    seen.set(dotted, raw);
    // alone first, so that the problem names this --set; the parameters file's schema, the same messages
    const alone = path.reduceRight<unknown>((inner, part) => ({ [part]: inner }), value);
    const parsed = partialConfigSchema.safeParse(alone);
    if (!parsed.success) {
      const p = firstProblem(parsed.error, alone, '');
      throw new InvalidInputError('--set', raw, `--set ${raw}: ${p.message}`);
    }
    setAt(out, path, value);
  }
  return out;
}
