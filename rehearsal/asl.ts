// The pieces of Amazon States Language the sweep emulation evaluates itself (sweep-machine.ts): reference
// paths, Parameters, ResultPath, error matching and JSONata fields, each in the simple form the synthesized
// definition uses; anything else is refused (SweepEmulationError), never guessed.
import jsonata from 'jsonata';

/** The definition asks for something this emulation does not do: it refuses rather than guess. */
export class SweepEmulationError extends Error {
  override readonly name = 'SweepEmulationError';
}

/** A state failed as Step Functions fails it: `name` is the error a Retry or Catch matches. */
export class StateError extends Error {
  constructor(
    readonly error: string,
    readonly detail: string,
  ) {
    super(`${error}: ${detail}`);
    this.name = error;
  }
}

export type Json = unknown;
export interface AslState {
  Type: string;
  [field: string]: unknown;
}
export interface Retrier {
  ErrorEquals: string[];
  MaxAttempts?: number;
}
export interface Catcher {
  ErrorEquals: string[];
  Next: string;
  Output?: unknown;
}
export interface Definition {
  StartAt: string;
  States: Record<string, AslState>;
  TimeoutSeconds?: number;
}

/** The fields each kind of state may have here; any other field is refused (SweepEmulationError), not ignored. */
const KNOWN_FIELDS: Record<string, readonly string[]> = {
  LambdaTask: ['Type', 'Resource', 'Parameters', 'ResultPath', 'Retry', 'Next', 'End', 'Comment'],
  Map: [
    'Type',
    'ItemReader',
    'ItemProcessor',
    'MaxConcurrency',
    'MaxConcurrencyPath',
    'ToleratedFailurePercentage',
    'ResultWriter',
    'ResultPath',
    'Next',
    'End',
    'Comment',
    'Label',
  ],
  CallbackTask: [
    'Type',
    'QueryLanguage',
    'Resource',
    'Arguments',
    'Retry',
    'Catch',
    'TimeoutSeconds',
    'Next',
    'End',
    'Comment',
  ],
  Pass: ['Type', 'Next', 'End', 'Comment'],
  Succeed: ['Type', 'Comment'],
};

export function checkFields(kind: keyof typeof KNOWN_FIELDS, name: string, state: AslState): void {
  const unknown = Object.keys(state).filter((f) => !KNOWN_FIELDS[kind].includes(f));
  if (unknown.length) throw new SweepEmulationError(`state ${name}: fields not emulated: ${unknown.join(', ')}`);
}

/** A reference path of the simple form the definition uses ($ or $.a.b); anything else is refused. */
export function readPath(path: string, data: Json): Json {
  if (path === '$') return data;
  if (!/^\$(\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(path)) throw new SweepEmulationError(`path ${path} not emulated`);
  let value = data;
  for (const key of path.slice(2).split('.')) {
    if (value === null || typeof value !== 'object' || !(key in value))
      throw new StateError('States.Runtime', `the path ${path} matches nothing in the state's input`);
    value = (value as Record<string, Json>)[key];
  }
  return value;
}

/** JSONPath Parameters (or ItemReader/ResultWriter Parameters): "key.$" takes a path's value, other keys stay. */
export function applyParameters(params: Json, input: Json): Json {
  if (Array.isArray(params)) return params.map((p) => applyParameters(p, input));
  if (params === null || typeof params !== 'object') return params;
  return Object.fromEntries(
    Object.entries(params).map(([k, v]) =>
      k.endsWith('.$') ? [k.slice(0, -2), readPath(v as string, input)] : [k, applyParameters(v, input)],
    ),
  );
}

/** ResultPath: null discards the result, $ replaces the input, $.a.b sets a field of a copy. */
export function applyResultPath(resultPath: unknown, input: Json, result: Json): Json {
  if (resultPath === null) return input;
  if (resultPath === undefined || resultPath === '$') return result;
  const path = typeof resultPath === 'string' ? resultPath : JSON.stringify(resultPath);
  if (!/^\$(\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(path)) throw new SweepEmulationError(`ResultPath ${path} not emulated`);
  type Tree = { [key: string]: Json };
  const out = structuredClone(input) as Tree;
  const keys = path.slice(2).split('.');
  let target = out;
  for (const key of keys.slice(0, -1)) target = (target[key] ??= {}) as Tree;
  target[keys.at(-1)!] = result;
  return out;
}

export const matches = (errorEquals: string[], error: string) =>
  errorEquals.includes(error) || errorEquals.includes('States.ALL');

/** JSONata fields: every string "{% expr %}" evaluated with $states bound (compiled once per expression). */
const compiled = new Map<string, jsonata.Expression>();
export async function evaluateJsonata(template: Json, states: Record<string, unknown>): Promise<Json> {
  if (typeof template === 'string') {
    const m = /^\{%([\s\S]*)%\}$/.exec(template.trim());
    if (!m) return template;
    let expression = compiled.get(m[1]);
    if (!expression) compiled.set(m[1], (expression = jsonata(m[1])));
    return expression.evaluate({}, { states });
  }
  if (Array.isArray(template)) return Promise.all(template.map((t) => evaluateJsonata(t, states)));
  if (template !== null && typeof template === 'object') {
    const entries = await Promise.all(
      Object.entries(template).map(async ([k, v]) => [k, await evaluateJsonata(v, states)] as const),
    );
    return Object.fromEntries(entries);
  }
  return template;
}
