// Parameters from a YAML file with the same names as in Parameter Store, so
// `npm start` needs no AWS. Keys are parameter names; `!secure` is not
// needed: anything under <prefix>/secrets/ is treated as a SecureString.
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import type { ParameterSource, RawParameter } from './parameters.ts';
import { InvalidParameterError } from './parameters.ts';

export function fileSource(path: string): ParameterSource {
  return {
    async readAll(prefix) {
      let doc: unknown;
      try {
        doc = parse(await readFile(path, 'utf8'));
      } catch (err) {
        throw new InvalidParameterError(path, `cannot read parameters file ${path}: ${(err as Error).message}`);
      }
      if (doc === null || doc === undefined) return [];
      if (typeof doc !== 'object' || Array.isArray(doc))
        throw new InvalidParameterError(path, `${path} must map parameter names to values`);
      const out: RawParameter[] = [];
      for (const [name, value] of Object.entries(doc as Record<string, unknown>)) {
        if (!name.startsWith(`${prefix}/`)) continue;
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        out.push({ name, value: text, secure: name.startsWith(`${prefix}/secrets/`) });
      }
      return out;
    },
  };
}
