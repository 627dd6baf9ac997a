// Workflow conditions and code are CEL (Common Expression Language) through @marcbachmann/cel-js: not Turing-complete,
// no access to the host (no eval, Function, globals or prototype chain). Every expression is parsed and type-checked
// against the declared variables when the workflow loads, so a typo fails at load with its YAML path, not mid-run.
import { Environment } from '@marcbachmann/cel-js';

export type VarType = 'int' | 'double' | 'string' | 'bool';
export type VarValue = number | string | boolean;

/** Facts a workflow can read: no coordinates, so a workflow cannot be written for one maze. */
export const BUILTIN_VARIABLES: Record<string, { type: VarType; doc: string }> = {
  turn: { type: 'int', doc: 'the current turn number' },
  actions_taken: { type: 'int', doc: 'actions executed so far in the run' },
  actions_left_in_turn: { type: 'int', doc: 'actions the agent may still take this turn' },
  tiles_seen: { type: 'int', doc: 'distinct tiles seen so far' },
  last_action_tool: { type: 'string', doc: 'the tool of the last executed action ("" before the first)' },
  last_action_result: {
    type: 'string',
    doc:
      'its outcome: moved, blocked_by_wall, blocked_by_edge, recalled, recall_cooldown, ' +
      'unknown_tool, invalid_arguments',
  },
  last_action_ok: { type: 'bool', doc: 'whether it succeeded' },
  last_new_tiles: { type: 'int', doc: 'tiles it revealed' },
  recent_moves_ok: { type: 'double', doc: 'share of the last 5 moves that succeeded (1.0 before any move)' },
  failed_moves_in_a_row: { type: 'int', doc: 'failed moves since the last successful one' },
  phase: { type: 'string', doc: 'the agent phase: exploring, backtracking, recalling, stuck, finishing' },
  stuck: { type: 'bool', doc: 'whether the agent phase is stuck' },
  state: { type: 'string', doc: 'the workflow state' },
  steps_in_state: { type: 'int', doc: 'workflow steps run since entering the state' },
  actions_in_state: { type: 'int', doc: 'actions executed since entering the state' },
  last_reply: { type: 'string', doc: 'the text of the last model reply' },
  choice: { type: 'string', doc: 'the option the model picked in the last transition step' },
};

export function typeOf(value: VarValue): VarType {
  return typeof value === 'string'
    ? 'string'
    : typeof value === 'boolean'
      ? 'bool'
      : Number.isInteger(value)
        ? 'int'
        : 'double';
}

/** A failed check: where in the expression, and why (one line). */
export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';
}

const LIMITS = { maxAstNodes: 500, maxDepth: 40, maxListElements: 100, maxMapEntries: 100, maxCallArguments: 8 };

export class Expressions {
  private readonly env: Environment;
  private readonly compiled = new Map<string, (ctx: Record<string, unknown>) => unknown>();

  constructor(readonly types: Record<string, VarType>) {
    this.env = new Environment({ limits: LIMITS });
    for (const [name, type] of Object.entries(types)) this.env.registerVariable(name, type);
  }

  /** Parses and type-checks; returns the result type (a VarType, or e.g. list(int)) or throws ExpressionError. */
  check(expression: string): string {
    let result;
    try {
      result = this.env.check(expression);
    } catch (e) {
      throw new ExpressionError(firstLine(e));
    }
    if (!result.valid) throw new ExpressionError(firstLine(result.error));
    return String(result.type);
  }

  evaluate(expression: string, vars: Record<string, VarValue>): VarValue {
    let run = this.compiled.get(expression);
    if (!run) {
      run = this.env.parse(expression);
      this.compiled.set(expression, run);
    }
    const ctx: Record<string, unknown> = {};
    for (const [name, type] of Object.entries(this.types)) {
      const v = vars[name];
      ctx[name] = type === 'int' ? BigInt(Math.trunc(Number(v ?? 0))) : v;
    }
    let out: unknown;
    try {
      out = run(ctx);
    } catch (e) {
      throw new ExpressionError(firstLine(e));
    }
    if (typeof out === 'bigint') return Number(out);
    if (typeof out === 'number' || typeof out === 'string' || typeof out === 'boolean') return out;
    throw new ExpressionError(`the expression gave a ${typeof out}; workflow values are int, double, string or bool`);
  }
}

function firstLine(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return message.split('\n')[0];
}
