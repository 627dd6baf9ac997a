// YAML read with positions, so that every problem in a researcher's file
// (a workflow, a sweep) is reported by its path and line, all of them at
// once: the YAML syntax, then the shape (zod), then whatever the caller
// checks on top. Fixing a file should take one run, not one run per mistake.
import type { z } from 'zod';
import { LineCounter, parseDocument, isMap, isNode, isScalar, isSeq } from 'yaml';
import { isForbiddenKey } from './forbidden-keys.ts';
import { preview, valueAt } from './zod-errors.ts';

export interface YamlProblem {
  path: string;
  line: number | null;
  problem: string;
}

/** Problems listed in a message; the rest are counted ("... and 12 more") and kept in `problems`. */
const MAX_LISTED = 50;

/** The path, and the line when known: "steps[2].run_if (line 17)". */
const whereOf = (p: YamlProblem) => `${p.path}${p.line ? ` (line ${p.line})` : ''}`;

/**
 * A YAML file that cannot be used, with every problem found in it, sorted by
 * line. `path`, `line`, `problem` and `where` are the first one's (e.g.
 * steps[2].run_if). Subclasses name the kind.
 */
export abstract class YamlFileError extends Error {
  readonly problems: YamlProblem[];
  readonly path: string;
  readonly line: number | null;
  readonly problem: string;

  constructor(
    kind: string,
    problems: YamlProblem[],
    readonly source: string,
  ) {
    super('');
    // problems without a line concern the whole file: they come first
    this.problems = [...problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    ({ path: this.path, line: this.line, problem: this.problem } = this.problems[0]);
    const lines = this.problems.slice(0, MAX_LISTED).map((p) => `${whereOf(p)}: ${p.problem}`);
    if (this.problems.length > MAX_LISTED) lines.push(`... and ${this.problems.length - MAX_LISTED} more`);
    // one problem keeps the one-line form: `workflow "study/v1": steps[3].run_if (line 40): Unknown variable: x`
    this.message =
      lines.length === 1
        ? `${kind} ${source}: ${lines[0]}`
        : `${kind} ${source}: ${this.problems.length} problems\n${lines.map((l) => `  ${l}`).join('\n')}`;
  }

  get where(): string {
    return whereOf(this.problems[0]);
  }
}

type Path = ReadonlyArray<PropertyKey>;

/** The path as written in messages: steps[2].run_if, mazes.sizes[0], (root). */
const pathText = (path: Path) =>
  path.map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i === 0 ? '' : '.'}${String(k)}`)).join('') || '(root)';

export interface YamlFile<T> {
  /**
   * A piece of the file (e.g. ['steps', 2]) parsed with its own schema, for
   * checks on top of the shape: its value when valid, else undefined (its
   * shape problems are already reported).
   */
  piece: <S extends z.ZodType>(path: Path, schema: S) => z.output<S> | undefined;
  /** The valid elements of the list at `path`, each with its index. */
  items: <S extends z.ZodType>(path: Path, element: S) => Array<[number, z.output<S>]>;
  /** Records a problem at `path` (functions, not methods: callers destructure them). */
  report: (path: Path, problem: string) => void;
  /** The whole file when nothing was reported; else throws the caller's error with every problem. */
  done: () => T;
}

/**
 * Parses and validates the shape, collecting every problem; the caller adds
 * its own with `report` and ends with `done`. Throws at once only when the
 * YAML cannot be read (syntax errors, alias bombs): its shape would be a guess.
 */
export function readYaml<S extends z.ZodType>(
  text: string,
  schema: S,
  toError: (problems: YamlProblem[]) => Error,
): YamlFile<z.output<S>> {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0)
    throw toError(
      doc.errors.map((e) => ({
        path: '(yaml)',
        line: lines.linePos(e.pos[0]).line,
        problem: e.message.split('\n')[0],
      })),
    );
  const lineOf = (path: Path): number | null => {
    for (let n = path.length; n >= 0; n--) {
      const node = doc.getIn(path.slice(0, n) as Array<string | number>, true);
      if (isNode(node) && node.range) return lines.linePos(node.range[0]).line;
    }
    return null;
  };
  const problems: YamlProblem[] = [];
  const seen = new Set<string>();
  const report = (path: Path, problem: string) => {
    const p = { path: pathText(path), line: lineOf(path), problem };
    // checks repeated per cell or per combination find the same problem many times
    const key = `${p.path}\n${p.problem}`;
    if (!seen.has(key)) problems.push(p);
    seen.add(key);
  };
  // keys that reach prototypes are refused, not silently dropped or applied (YAML's own __proto__ handling);
  // they are reported with their lines, then taken out so the rest of the file can still be checked
  for (const path of findForbiddenYamlKeys(doc.contents)) {
    report(path, `the key "${String(path.at(-1))}" is not allowed (it could reach object prototypes)`);
    doc.deleteIn(path);
  }
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 50 });
  } catch (e) {
    // e.g. an alias bomb: "Excessive alias count"
    throw toError([...problems, { path: '(yaml)', line: null, problem: (e as Error).message.split('\n')[0] }]);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      if (issue.code === 'unrecognized_keys')
        // an unknown key is reported at the key itself
        for (const key of issue.keys) report([...issue.path, key], `Unrecognized key: "${key}"`);
      else if (issue.code === 'invalid_value' && issue.values.length > 1)
        report(issue.path, `${preview(valueAt(raw, issue.path))} is not one of: ${issue.values.join(', ')}`);
      else report(issue.path, issue.message);
    }

  const piece = <P extends z.ZodType>(path: Path, part: P): z.output<P> | undefined => {
    const r = part.safeParse(valueAt(raw, path));
    return r.success ? r.data : undefined;
  };
  return {
    piece,
    items: (path, element) => {
      const list = valueAt(raw, path);
      if (!Array.isArray(list)) return [];
      return list.flatMap((_, i) => {
        const value = piece([...path, i], element);
        return value === undefined ? [] : [[i, value] as [number, z.output<typeof element>]];
      });
    },
    report,
    done: () => {
      if (problems.length > 0) throw toError(problems);
      return parsed.data as z.output<S>;
    },
  };
}

/** The paths of the mapping keys named __proto__, constructor or prototype, in the YAML nodes themselves. */
function findForbiddenYamlKeys(node: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  if (isMap(node))
    return node.items.flatMap((item) => {
      const key = isScalar(item.key) ? String(item.key.value) : String(item.key);
      return isForbiddenKey(key) ? [[...path, key]] : findForbiddenYamlKeys(item.value, [...path, key]);
    });
  if (isSeq(node)) return node.items.flatMap((item, i) => findForbiddenYamlKeys(item, [...path, i]));
  return [];
}
