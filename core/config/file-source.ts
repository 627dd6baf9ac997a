// Parameters from a YAML file with the same names as in Parameter Store, so
// `npm start` needs no AWS. Keys are parameter names; the API keys are the
// ones under <prefix>-secrets/ (secrets.ts), as on AWS; a name under the old
// <prefix>/secrets/ is marked secure, so resolveParameters says where it moved.
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import type { ParameterSource, RawParameter } from './parameters.ts';
import { InvalidParameterError } from './parameters.ts';
import { secretParameterName } from './secrets.ts';

async function readDocument(path: string): Promise<Record<string, unknown>> {
  let doc: unknown;
  try {
    doc = parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new InvalidParameterError(path, `cannot read parameters file ${path}: ${(err as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new InvalidParameterError(path, `${path} must map parameter names to values`);
  return doc as Record<string, unknown>;
}

export function fileSource(path: string): ParameterSource {
  return {
    async readSecret(prefix, name) {
      const value = (await readDocument(path))[secretParameterName(prefix, name)];
      if (value === undefined || value === null) return undefined;
      if (typeof value !== 'string' && typeof value !== 'number')
        throw new InvalidParameterError(secretParameterName(prefix, name), `${path}: a key must be one string`);
      return String(value);
    },
    async readAll(prefix) {
      const doc = await readDocument(path);
      const out: RawParameter[] = [];
      for (const [name, value] of Object.entries(doc)) {
        if (!name.startsWith(`${prefix}/`)) continue;
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        out.push({ name, value: text, secure: name.startsWith(`${prefix}/secrets/`) });
      }
      return out;
    },
  };
}
