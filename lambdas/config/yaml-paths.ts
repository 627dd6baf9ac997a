// YAML read with positions, so that every problem in a researcher's file
// (a workflow, a sweep) is reported by its path and line: the YAML syntax,
// then the shape (zod), then whatever the caller checks on top.
import type { z } from 'zod';
import { LineCounter, parseDocument, isMap, isNode, isScalar, isSeq } from 'yaml';
import { isForbiddenKey } from './forbidden-keys.ts';

export interface YamlProblem {
  path: string;
  line: number | null;
  problem: string;
}

/**
 * A YAML file that cannot be used: `path` is where in it (e.g.
 * steps[2].run_if), `line` its line. Subclasses name the kind.
 */
export abstract class YamlFileError extends Error {
  constructor(
    kind: string,
    readonly path: string,
    readonly line: number | null,
    readonly problem: string,
    readonly source: string,
  ) {
    super('');
    this.message = `${kind} ${source}: ${this.where}: ${problem}`;
  }

  /** The path, and the line when known: "steps[2].run_if (line 17)". */
  get where(): string {
    return `${this.path}${this.line ? ` (line ${this.line})` : ''}`;
  }
}

/** The path as written in messages: steps[2].run_if, mazes.sizes[0], (root). */
const pathText = (path: ReadonlyArray<PropertyKey>) =>
  path.map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i === 0 ? '' : '.'}${String(k)}`)).join('') || '(root)';

export interface YamlFile<T> {
  value: T;
  /** Throws the caller's error for a problem at `path` (a function, not a method: callers destructure it). */
  fail: (path: ReadonlyArray<PropertyKey>, problem: string) => never;
}

/** Parses and validates; `toError` builds the caller's typed error from a problem. */
export function readYaml<S extends z.ZodType>(
  text: string,
  schema: S,
  toError: (p: YamlProblem) => Error,
): YamlFile<z.output<S>> {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const lineOf = (path: ReadonlyArray<PropertyKey>): number | null => {
    for (let n = path.length; n >= 0; n--) {
      const node = doc.getIn(path.slice(0, n) as Array<string | number>, true);
      if (isNode(node) && node.range) return lines.linePos(node.range[0]).line;
    }
    return null;
  };
  const fail = (path: ReadonlyArray<PropertyKey>, problem: string): never => {
    throw toError({ path: pathText(path), line: lineOf(path), problem });
  };
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    throw toError({ path: '(yaml)', line: lines.linePos(e.pos[0]).line, problem: e.message.split('\n')[0] });
  }
  // keys that reach prototypes are refused, not silently dropped or applied (YAML's own __proto__ handling)
  const forbidden = findForbiddenYamlKey(doc.contents);
  if (forbidden) fail(forbidden, `the key "${forbidden.at(-1)}" is not allowed (it could reach object prototypes)`);
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 50 });
  } catch (e) {
    // e.g. an alias bomb: "Excessive alias count"
    throw toError({ path: '(yaml)', line: null, problem: (e as Error).message.split('\n')[0] });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // an unknown key is reported at the key itself
    fail(issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]] : issue.path, issue.message);
  }
  return { value: parsed.data as z.output<S>, fail };
}

/** The path of the first mapping key named __proto__, constructor or prototype, in the YAML nodes themselves. */
function findForbiddenYamlKey(node: unknown, path: Array<string | number> = []): Array<string | number> | null {
  if (isMap(node)) {
    for (const item of node.items) {
      const key = isScalar(item.key) ? String(item.key.value) : String(item.key);
      if (isForbiddenKey(key)) return [...path, key];
      const found = findForbiddenYamlKey(item.value, [...path, key]);
      if (found) return found;
    }
  } else if (isSeq(node)) {
    for (let i = 0; i < node.items.length; i++) {
      const found = findForbiddenYamlKey(node.items[i], [...path, i]);
      if (found) return found;
    }
  }
  return null;
}
