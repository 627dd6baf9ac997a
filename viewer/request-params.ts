// What a viewer URL may carry, checked before any of it reaches SQL: ids match the patterns the engine gives them,
// filters and sort columns come from fixed lists, numbers have bounds, free text has a length and no control
// characters. A request that fails gets 400 naming the field, the value and what would be accepted.
import { z } from 'zod';
import { EXPERIMENT_ID_PATTERN, SWEEP_ID_PATTERN } from '../core/machine/contracts.ts';

/** A request the viewer refuses: the field, the value as sent, and the fix. */
export class InvalidRequestError extends Error {
  override readonly name = 'InvalidRequestError';
  constructor(
    readonly field: string,
    readonly value: unknown,
    readonly fix: string,
  ) {
    super(`${field}=${JSON.stringify(value)} is not accepted: ${fix}`);
  }
}

export const experimentId = z.string().regex(EXPERIMENT_ID_PATTERN, 'an experiment id: 1-64 letters, digits, - or _');
export const sweepId = z.string().regex(SWEEP_ID_PATTERN, 'a sweep name: 1-40 lower-case letters, digits, - or _');

/** Free text a person types (a model name, a search): bounded, printable. */
export const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'empty: leave the field out instead')
    .max(max, `at most ${max} characters`)
    // eslint-disable-next-line no-control-regex -- the point: no control characters reach a query or a log
    .regex(/^[^\u0000-\u001f\u007f]+$/, 'printable characters only (no control characters)');

/** An optional field where an empty value means absent, as a form sends a blank choice ("kind="). */
export const blankable = <S extends z.ZodType>(schema: S) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/** An integer query value (they arrive as text). */
export const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** `query` checked against `schema`; the first problem as an InvalidRequestError. */
export function parseRequest<S extends z.ZodType>(schema: S, query: unknown): z.infer<S> {
  const result = schema.safeParse(query ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue.path.map(String).join('.') || 'request';
  const value = valueAt(query, issue.path);
  if (issue.code === 'unrecognized_keys')
    throw new InvalidRequestError(issue.keys.join(', '), valueAt(query, [issue.keys[0]]), 'not a field of this page');
  throw new InvalidRequestError(field, value, issue.message);
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = input;
  for (const key of path) v = v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}
