// Inspect AI's own log schema (the OpenAPI document its viewer ships; test/fixtures/inspect-ai/README.md says where
// it comes from and why it is not committed), read from where it may be, checked against its pinned sha256, and
// compiled with Ajv's JSON Schema 2020-12 validator: a validator per Inspect type (EvalLog, EvalSample, ...).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';

const ROOT = join(import.meta.dirname, '..', '..');
/** The pinned file: UKGovernmentBEIS/inspect_ai at b3c6e5687b0e, src/inspect_ai/_view/inspect-openapi.json. */
const INSPECT_SCHEMA_SHA256 = 'adad55a0f031bf18cf16f2b630cdfbff6ae06ea7e10e07e61ea7e774beee1fd2';
const PLACES = [
  join(ROOT, 'test-output', 'inspect-ai', 'inspect-openapi.json'),
  join(ROOT, '..', 'shared', 'inspect-ai', 'inspect-openapi.json'),
];
const ID = 'https://github.com/UKGovernmentBEIS/inspect_ai/src/inspect_ai/_view/inspect-openapi.json';

export type Validate = (value: unknown) => string[];

/** A validator per Inspect type name, or null (with where it looked) when the schema is in none of its places. */
export function inspectSchema(): { validator: (type: string) => Validate; file: string } | { missing: string } {
  const file = PLACES.find((p) => existsSync(p));
  if (!file) return { missing: `Inspect's log schema is in none of ${PLACES.join(', ')}` };
  const text = readFileSync(file);
  const sha = createHash('sha256').update(text).digest('hex');
  if (sha !== INSPECT_SCHEMA_SHA256)
    throw new Error(`${file} has sha256 ${sha}, not the pinned ${INSPECT_SCHEMA_SHA256}`);
  const doc = JSON.parse(text.toString('utf8')) as { components: unknown };
  // strict off: OpenAPI's discriminator and the document's other keys are not JSON Schema's; formats not checked
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: ID, components: doc.components });
  const validator = (type: string): Validate => {
    const v = ajv.getSchema(`${ID}#/components/schemas/${type}`);
    if (!v) throw new Error(`Inspect's schema has no ${type}`);
    return (value) => (v(value) ? [] : (v.errors ?? []).map((e: ErrorObject) => `${e.instancePath} ${e.message}`));
  };
  return { validator, file };
}
