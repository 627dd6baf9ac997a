// Runs a loaded workflow, one agent reply at a time: each reply walks the current state's steps from where the last
// one stopped (code steps set variables, transition steps ask the model, an llm step's tool calls end the reply), then
// the first transition whose condition holds moves the workflow on, else the state runs again. A move the transition
// table does not allow is refused and logged. The runner's memory is plain JSON, persisted with each turn.
import type { ActionResult } from '../game.ts';
import type { ToolCall } from '../tools.ts';
import type { LoadedWorkflow, WorkflowStep } from './definition.ts';
import { ExpressionError, type VarValue } from './expressions.ts';
import { ModelCallDeadlineError } from '../../errors.ts';

export interface WorkflowMemory {
  state: string;
  /** Index, among the current state's steps, of the next step to run. */
  next: number;
  vars: Record<string, VarValue>;
  stepsInState: number;
  actionsAtStateEntry: number;
  recentMoves: boolean[];
  failedMovesInARow: number;
  last: { tool: string; result: string; ok: boolean; newTiles: number };
  lastReply: string;
  choice: string;
}

/** What the runner knows of the game when a reply is asked for (no coordinates). */
export interface WorkflowFacts {
  turn: number;
  actionsTaken: number;
  actionsLeftInTurn: number;
  tilesSeen: number;
  phase: string;
  results: ActionResult[];
}

/** One model call a step makes: its prompt and the tools it offers ([] for none). */
export interface StepAsk {
  step: string;
  kind: 'llm' | 'transition';
  prompt: string;
  tools: readonly string[] | null;
}
export type Ask = (ask: StepAsk) => Promise<{ text: string; calls: ToolCall[] }>;

interface StepTrace {
  step: string;
  state: string;
  outcome: 'ran' | 'skipped' | 'failed' | 'retried' | 'skipped_after_failure';
  detail?: string;
}
export interface WorkflowMove {
  from: string;
  to: string;
  cause: string;
  refused: boolean;
}

export interface WorkflowReply {
  calls: ToolCall[];
  text: string | null;
  steps: StepTrace[];
  moves: WorkflowMove[];
}

/** A step failed with on_failure: fail (or ran out of retries): the turn fails, and with it the experiment. */
export class WorkflowStepError extends Error {
  override readonly name = 'WorkflowStepError';
  constructor(
    readonly step: string,
    readonly state: string,
    problem: string,
  ) {
    super(`workflow step "${step}" (state ${state}) failed: ${problem}`);
  }
}

const RECENT_MOVES = 5;

export function initialMemory(wf: LoadedWorkflow): WorkflowMemory {
  return {
    state: wf.definition.initial_state,
    next: 0,
    vars: { ...wf.initialVariables },
    stepsInState: 0,
    actionsAtStateEntry: 0,
    recentMoves: [],
    failedMovesInARow: 0,
    last: { tool: '', result: '', ok: true, newTiles: 0 },
    lastReply: '',
    choice: '',
  };
}

export class WorkflowRunner {
  constructor(
    private readonly wf: LoadedWorkflow,
    readonly memory: WorkflowMemory,
  ) {}

  private stepsOf(state: string): WorkflowStep[] {
    return this.wf.definition.steps.filter(
      (s) =>
        s.in_state === undefined || (Array.isArray(s.in_state) ? s.in_state.includes(state) : s.in_state === state),
    );
  }

  private variables(f: WorkflowFacts): Record<string, VarValue> {
    const m = this.memory;
    const moves = m.recentMoves;
    return {
      ...m.vars,
      turn: f.turn,
      actions_taken: f.actionsTaken,
      actions_left_in_turn: f.actionsLeftInTurn,
      tiles_seen: f.tilesSeen,
      last_action_tool: m.last.tool,
      last_action_result: m.last.result,
      last_action_ok: m.last.ok,
      last_new_tiles: m.last.newTiles,
      recent_moves_ok: moves.length === 0 ? 1 : moves.filter(Boolean).length / moves.length,
      failed_moves_in_a_row: m.failedMovesInARow,
      phase: f.phase,
      stuck: f.phase === 'stuck',
      state: m.state,
      steps_in_state: m.stepsInState,
      actions_in_state: f.actionsTaken - m.actionsAtStateEntry,
      last_reply: m.lastReply,
      choice: m.choice,
    };
  }

  private learn(results: ActionResult[]): void {
    const m = this.memory;
    for (const r of results.filter((x) => x.executed)) {
      m.last = { tool: r.tool, result: r.outcome, ok: r.success, newTiles: r.newTiles };
      if (r.tool.startsWith('move_')) {
        m.recentMoves = [...m.recentMoves, r.success].slice(-RECENT_MOVES);
        m.failedMovesInARow = r.success ? 0 : m.failedMovesInARow + 1;
      }
    }
  }

  /** Fills {variable} placeholders (checked at load) and injects the step's prompt components. */
  private render(step: WorkflowStep & { prompt: string }, vars: Record<string, VarValue>): string {
    const fill = (t: string) => t.replace(/\{([a-z_][a-z0-9_]*)\}/g, (_m, k: string) => String(vars[k]));
    const parts = this.wf.definition.components.filter((c) => c.inject_into.includes(step.name));
    return [
      ...parts.filter((c) => c.position === 'before').map((c) => fill(c.text)),
      fill(step.prompt),
      ...parts.filter((c) => c.position === 'after').map((c) => fill(c.text)),
    ].join('\n\n');
  }

  private move(to: string, cause: string, f: WorkflowFacts, moves: WorkflowMove[]): boolean {
    const from = this.memory.state;
    const allowed = this.wf.definition.transitions.some((t) => (t.from === from || t.from === '*') && t.to === to);
    moves.push({ from, to, cause, refused: !allowed });
    if (!allowed) return false;
    Object.assign(this.memory, { state: to, next: 0, stepsInState: 0, actionsAtStateEntry: f.actionsTaken });
    return true;
  }

  async reply(f: WorkflowFacts, ask: Ask): Promise<WorkflowReply> {
    this.learn(f.results);
    const m = this.memory;
    const steps: StepTrace[] = [];
    const moves: WorkflowMove[] = [];
    const { expressions, definition } = this.wf;
    let budget = definition.max_steps_per_reply;
    let idleCycles = 0;
    while (budget > 0) {
      const list = this.stepsOf(m.state);
      if (m.next >= list.length) {
        // end of the state's steps: the first transition whose condition holds
        const vars = this.variables(f);
        const t = definition.transitions.find(
          (x) =>
            (x.from === m.state || x.from === '*') &&
            x.to !== m.state &&
            (x.condition === undefined || this.holds(x.condition, vars)),
        );
        const moved = t ? this.move(t.to, t.condition ? `condition: ${t.condition}` : 'end of state', f, moves) : false;
        if (!moved) m.next = 0;
        // a state with nothing to run and nowhere to go would spin: give the turn back
        if (list.length === 0 && ++idleCycles > definition.states.length) break;
        continue;
      }
      const step = list[m.next++];
      const at = m.state;
      let attempt = 0;
      for (;;) {
        try {
          const vars = this.variables(f);
          if (attempt === 0) budget--; // skipped steps count too, so a state whose steps all skip cannot spin
          if (step.run_if !== undefined && expressions.evaluate(step.run_if, vars) !== true) {
            steps.push({ step: step.name, state: at, outcome: 'skipped', detail: `run_if false: ${step.run_if}` });
            break;
          }
          m.stepsInState++;
          const calls = await this.run(step, vars, f, ask, moves);
          steps.push({ step: step.name, state: at, outcome: 'ran' });
          if (step.transition_to && m.state === at) this.move(step.transition_to, `after step ${step.name}`, f, moves);
          if (calls.length > 0) return { calls, text: m.lastReply || null, steps, moves };
          break;
        } catch (e) {
          // The provider's own errors keep their names: the state machine retries or fails them. The turn's deadline
          // ends the reply (the engine commits the turn), whatever the step's on_failure says.
          if (e instanceof WorkflowStepError || e instanceof ModelCallDeadlineError) throw e;
          if (e instanceof Error && e.name.startsWith('Provider')) throw e;
          const problem = e instanceof Error ? e.message : String(e);
          const policy = step.on_failure;
          if (policy.action === 'retry' && attempt < policy.max_retries) {
            attempt++;
            steps.push({ step: step.name, state: at, outcome: 'retried', detail: problem });
            continue;
          }
          if (policy.action === 'skip') {
            steps.push({ step: step.name, state: at, outcome: 'skipped_after_failure', detail: problem });
            break;
          }
          steps.push({ step: step.name, state: at, outcome: 'failed', detail: problem });
          throw new WorkflowStepError(step.name, at, problem);
        }
      }
    }
    return { calls: [], text: `workflow: no tool call within ${definition.max_steps_per_reply} steps`, steps, moves };
  }

  private holds(condition: string, vars: Record<string, VarValue>): boolean {
    try {
      return this.wf.expressions.evaluate(condition, vars) === true;
    } catch (e) {
      throw new WorkflowStepError(
        'transitions',
        this.memory.state,
        `${condition}: ${e instanceof ExpressionError ? e.message : String(e)}`,
      );
    }
  }

  /** Runs one step; returns the tool calls an llm step made (else []). Throws on failure. */
  private async run(
    step: WorkflowStep,
    vars: Record<string, VarValue>,
    f: WorkflowFacts,
    ask: Ask,
    moves: WorkflowMove[],
  ): Promise<ToolCall[]> {
    const m = this.memory;
    if (step.type === 'code') {
      // in order: a later expression reads what an earlier one set
      for (const [k, expr] of Object.entries(step.set))
        m.vars[k] = this.wf.expressions.evaluate(expr, { ...vars, ...m.vars });
      return [];
    }
    if (step.type === 'transition') {
      const options = Object.keys(step.transition_map);
      const prompt = `${this.render(step, vars)}\n\nAnswer with exactly one of: ${options.join(', ')}.`;
      const reply = await ask({ step: step.name, kind: 'transition', prompt, tools: [] });
      m.lastReply = reply.text;
      const said = reply.text.toLowerCase();
      // the option named first in the answer (longest first, so "go_back" wins over "go")
      const choice = [...options]
        .sort((a, b) => b.length - a.length)
        .map((o) => ({ o, at: said.search(new RegExp(`(^|[^a-z0-9_-])${o.replace(/[-]/g, '\\-')}($|[^a-z0-9_-])`)) }))
        .filter((x) => x.at >= 0)
        .sort((a, b) => a.at - b.at)[0]?.o;
      if (!choice)
        throw new Error(`the answer ${JSON.stringify(reply.text.slice(0, 80))} names none of: ${options.join(', ')}`);
      m.choice = choice;
      this.move(step.transition_map[choice], `model chose ${choice}`, f, moves);
      return [];
    }
    const tools = step.tools ?? null;
    const reply = await ask({ step: step.name, kind: 'llm', prompt: this.render(step, vars), tools });
    m.lastReply = reply.text;
    if (step.save_reply_as) m.vars[step.save_reply_as] = reply.text;
    if (tools !== null && tools.length === 0) return [];
    if (reply.calls.length === 0) throw new Error('the model made no tool call');
    return reply.calls;
  }
}
