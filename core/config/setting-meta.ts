// What the config schema says of each setting beside its type, range and default: what it is, why a researcher
// varies it, and the command-line flag it has. Held in a zod registry so that the schema stays the one declaration;
// core/config/settings-table.ts reads it back as rows for the CLI, --set, sweeps and the docs.
import { z } from 'zod';

export interface SettingMeta {
  /** What the setting is, one sentence (the --help text and the docs' first words). */
  description: string;
  /** Why a researcher varies it (the docs only). */
  why?: string;
  /** Its own flag on `run` and `launch`, when it has one. */
  flag?: string;
  /** The flag's value placeholder (<n> for numbers, <value> otherwise). */
  placeholder?: string;
  /** The environment variable read before the built-in default. */
  env?: string;
  /** The default in words, where it is derived rather than fixed. */
  defaultText?: string;
  /** How a flag's text becomes the value (e.g. a host:port as a URL). */
  fromFlag?: (raw: string) => string;
}

export const SETTING_META = z.registry<SettingMeta>();

/** The schema of one setting or section, described. */
export function setting<T extends z.ZodType>(schema: T, meta: SettingMeta): T {
  SETTING_META.add(schema, meta);
  return schema;
}
