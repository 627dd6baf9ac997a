// Turns the first zod issue into an InvalidInputError that names the field,
// the value that was given and what is expected.
import type { z } from 'zod';
import { InvalidInputError } from '../errors.ts';

/** The value at `path` in what was given (undefined where it stops). */
export function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let cur = input;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, key)) return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

/** A value as quoted in a message: JSON, cut at 80 characters (an input may hold a huge one). */
export function preview(value: unknown): string {
  const text =
    value === undefined
      ? 'nothing'
      : typeof value === 'string'
        ? JSON.stringify(value)
        : // eslint-disable-next-line @typescript-eslint/no-base-to-string -- only what JSON cannot encode (a function)
          (JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export interface FieldProblem {
  field: string;
  value: unknown;
  message: string;
}

/** The first problem zod found, with the field's dotted path under `root` and the value given there. */
export function firstProblem(error: z.ZodError, input: unknown, root: string): FieldProblem {
  const issue = error.issues[0];
  const field = [root, ...issue.path.map(String)].filter(Boolean).join('.') || '(root)';
  const value = valueAt(input, issue.path);
  return { field, value, message: `${field}: ${issue.message} (got ${preview(value)})` };
}

export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, root = 'input'): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const p = firstProblem(parsed.error, input, root);
  throw new InvalidInputError(p.field, p.value, p.message);
}
