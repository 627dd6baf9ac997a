// The workflow runner's rules (docs/prompts-and-observations.md, "Workflows"), driven reply by reply with
// a scripted model: step order and resumption, transitions and their
// conditions, run_if, code steps, transition steps, on_failure, prompt
// components, the built-in variables, and the guards against spinning.
import { describe, expect, it } from 'vitest';
import {
  isWorkflowText,
  loadWorkflow,
  renderWorkflowSystem,
  WorkflowDefinitionError,
} from '../core/engine/workflow/definition.ts';
import {
  initialMemory,
  WorkflowRunner,
  WorkflowStepError,
  type Ask,
  type StepAsk,
  type WorkflowFacts,
} from '../core/engine/workflow/runner.ts';
import type { ActionResult, Outcome } from '../core/engine/game.ts';
import { actionResult } from './support/action-result.ts';
import type { ToolCall } from '../core/engine/tools.ts';

const HEAD = `workflow: t
system: "maze {width}x{height}"
`;

function runnerOf(body: string) {
  const wf = loadWorkflow(HEAD + body, 'test');
  return new WorkflowRunner(wf, structuredClone(initialMemory(wf)));
}

const facts = (over: Partial<WorkflowFacts> = {}): WorkflowFacts => ({
  turn: 1,
  actionsTaken: 0,
  actionsLeftInTurn: 8,
  tilesSeen: 5,
  phase: 'exploring',
  results: [],
  ...over,
});

const east: ToolCall[] = [{ name: 'move_east', arguments: {} }];

/** A model that answers each ask with the next scripted answer (text, and calls for llm steps with tools). */
function model(answers: Array<string | ToolCall[] | Error>) {
  const asked: StepAsk[] = [];
  let k = 0;
  const ask: Ask = (a) => {
    asked.push(a);
    const answer = answers[k++] ?? 'ok';
    if (answer instanceof Error) return Promise.reject(answer);
    return Promise.resolve(
      typeof answer === 'string' ? { text: answer, calls: [] } : { text: 'moving', calls: answer },
    );
  };
  return { ask, asked };
}

function result(tool: string, outcome: Outcome, newTiles = 0): ActionResult {
  return actionResult(tool, outcome, { newTiles });
}

describe('steps and replies', () => {
  const body = `states: [a, b]
initial_state: a
variables: { n: 0, note: "" }
transitions:
  - { from: a, to: b, condition: "n >= 2" }
  - { from: b, to: a }
steps:
  - { name: think, type: llm, in_state: a, prompt: "think {n}", tools: [], save_reply_as: note }
  - { name: count, type: code, in_state: a, set: { n: "n + 1" } }
  - { name: go, type: llm, in_state: a, prompt: "move ({note})", tools: [move_east] }
  - { name: other, type: llm, in_state: b, prompt: "in b" }
`;

  it("a state's steps run in order; tool calls end the reply; the next reply resumes after that step", async () => {
    const r = runnerOf(body);
    const m = model(['looked', east]);
    const first = await r.reply(facts(), m.ask);
    expect(first.calls).toEqual(east);
    expect(first.text).toBe('moving');
    expect(m.asked.map((a) => [a.step, a.kind, a.prompt, a.tools])).toEqual([
      ['think', 'llm', 'think 0', []],
      ['go', 'llm', 'move (looked)', ['move_east']],
    ]);
    expect(first.steps.map((s) => [s.step, s.state, s.outcome])).toEqual([
      ['think', 'a', 'ran'],
      ['count', 'a', 'ran'],
      ['go', 'a', 'ran'],
    ]);
    expect(r.memory.vars).toEqual({ n: 1, note: 'looked' });
    // n is 1: the condition does not hold, so the state's steps run again
    const second = await r.reply(facts(), model(['again', east]).ask);
    expect(second.moves).toEqual([]);
    expect(r.memory.vars.n).toBe(2);
    // n is 2: at the end of a's steps the workflow moves to b, naming the condition
    const m3 = model([east]);
    const third = await r.reply(facts({ actionsTaken: 6 }), m3.ask);
    expect(third.moves).toEqual([{ from: 'a', to: 'b', cause: 'condition: n >= 2', refused: false }]);
    expect(m3.asked[0].step).toBe('other');
    expect(r.memory).toMatchObject({ state: 'b', actionsAtStateEntry: 6, stepsInState: 1 });
    // an unconditional transition is taken at the end of b's steps
    const fourth = await r.reply(facts(), model(['x', east]).ask);
    expect(fourth.moves).toEqual([{ from: 'b', to: 'a', cause: 'end of state', refused: false }]);
  });

  it('an llm step offered tools that makes no tool call fails', async () => {
    const r = runnerOf(body);
    await expect(r.reply(facts(), model(['looked', 'no calls']).ask)).rejects.toThrow(
      'workflow step "go" (state a) failed: the model made no tool call',
    );
  });

  it('gives the turn back after max_steps_per_reply steps without a tool call', async () => {
    const r = runnerOf(`states: [a]
initial_state: a
max_steps_per_reply: 3
steps:
  - { name: think, type: llm, prompt: "think", tools: [] }
`);
    const m = model([]);
    const reply = await r.reply(facts(), m.ask);
    expect(reply).toMatchObject({ calls: [], text: 'workflow: no tool call within 3 steps' });
    expect(m.asked).toHaveLength(3);
  });

  it('a state with no steps and no way out gives the turn back instead of spinning', async () => {
    const r = runnerOf(`states: [a, b]
initial_state: b
steps:
  - { name: think, type: llm, in_state: a, prompt: "think" }
`);
    const reply = await r.reply(facts(), model([]).ask);
    expect(reply.calls).toEqual([]);
    expect(reply.steps).toEqual([]);
  });

  it('steps without in_state run in every state; a list of states is honoured', async () => {
    const r = runnerOf(`states: [a, b, c]
initial_state: c
steps:
  - { name: everywhere, type: llm, prompt: "e", tools: [] }
  - { name: some, type: llm, in_state: [a, c], prompt: "s", tools: [] }
  - { name: only_b, type: llm, in_state: b, prompt: "b", tools: [] }
  - { name: act, type: llm, prompt: "go" }
`);
    const m = model(['1', '2', east]);
    await r.reply(facts(), m.ask);
    expect(m.asked.map((a) => a.step)).toEqual(['everywhere', 'some', 'act']);
    expect(m.asked[2].tools).toBeNull(); // no tools key: every tool
  });
});

describe('run_if, code and transition_to', () => {
  it('run_if false skips a step, saying why; code sets in order, a later expression reads an earlier one', async () => {
    const r = runnerOf(`states: [a, b]
initial_state: a
variables: { x: 1, y: 0, done: false }
transitions: [{ from: a, to: b }]
steps:
  - { name: never, type: llm, in_state: a, run_if: "done", prompt: "never" }
  - { name: calc, type: code, in_state: a, set: { x: "x + 10", y: "x * 2" }, transition_to: b }
  - { name: act, type: llm, in_state: b, prompt: "x={x} y={y}" }
`);
    const m = model([east]);
    const reply = await r.reply(facts(), m.ask);
    expect(reply.steps.map((s) => [s.step, s.outcome, s.detail])).toEqual([
      ['never', 'skipped', 'run_if false: done'],
      ['calc', 'ran', undefined],
      ['act', 'ran', undefined],
    ]);
    expect(r.memory.vars).toEqual({ x: 11, y: 22, done: false });
    expect(m.asked[0].prompt).toBe('x=11 y=22');
    expect(reply.moves).toEqual([{ from: 'a', to: 'b', cause: 'after step calc', refused: false }]);
  });

  it('a move the transition table does not allow is refused, logged, and the workflow stays', async () => {
    const r = runnerOf(`states: [a, b]
initial_state: a
steps:
  - { name: jump, type: code, in_state: a, set: { n: "n + 1" }, transition_to: b }
  - { name: act, type: llm, in_state: a, prompt: "go" }
variables: { n: 0 }
`);
    const reply = await r.reply(facts(), model([east]).ask);
    expect(reply.moves).toEqual([{ from: 'a', to: 'b', cause: 'after step jump', refused: true }]);
    expect(r.memory.state).toBe('a');
  });

  it('a wildcard transition applies from any state', async () => {
    const r = runnerOf(`states: [a, b]
initial_state: a
transitions: [{ from: "*", to: b }]
steps:
  - { name: jump, type: code, in_state: a, set: { n: "n + 1" }, transition_to: b }
  - { name: act, type: llm, prompt: "go" }
variables: { n: 0 }
`);
    await r.reply(facts(), model([east]).ask);
    expect(r.memory.state).toBe('b');
  });
});

describe('transition steps', () => {
  const body = `states: [a, go_on, back]
initial_state: a
transitions:
  - { from: a, to: go_on }
  - { from: a, to: back }
steps:
  - name: pick
    type: transition
    in_state: a
    prompt: "where?"
    transition_map: { go: go_on, go_back: back }
  - { name: act, type: llm, prompt: "move" }
`;

  it('the model picks the option it names first; a longer option wins over its prefix', async () => {
    const r = runnerOf(body);
    const m = model(['I would go_back now, not go', east]);
    const reply = await r.reply(facts(), m.ask);
    expect(m.asked[0]).toEqual({
      step: 'pick',
      kind: 'transition',
      prompt: 'where?\n\nAnswer with exactly one of: go, go_back.',
      tools: [],
    });
    expect(r.memory).toMatchObject({ state: 'back', choice: 'go_back' });
    expect(reply.moves).toEqual([{ from: 'a', to: 'back', cause: 'model chose go_back', refused: false }]);

    const r2 = runnerOf(body);
    await r2.reply(facts(), model(['GO, then maybe go_back', east]).ask);
    expect(r2.memory.state).toBe('go_on');
  });

  it('an answer naming no option fails the step', async () => {
    const r = runnerOf(body);
    await expect(r.reply(facts(), model(['gone']).ask)).rejects.toThrow(
      'workflow step "pick" (state a) failed: the answer "gone" names none of: go, go_back',
    );
  });
});

describe('on_failure', () => {
  const withPolicy = (policy: string) =>
    runnerOf(`states: [a]
initial_state: a
steps:
  - { name: flaky, type: llm, prompt: "p", on_failure: ${policy} }
  - { name: act, type: llm, prompt: "move" }
`);

  it('retry runs the step again up to max_retries, then fails', async () => {
    const r = withPolicy('{ action: retry, max_retries: 2 }');
    const ok = await r.reply(facts(), model(['none', 'none', east]).ask);
    expect(ok.steps.map((s) => s.outcome)).toEqual(['retried', 'retried', 'ran']);
    expect(ok.steps[0].detail).toBe('the model made no tool call');
    const r2 = withPolicy('{ action: retry, max_retries: 1 }');
    await expect(r2.reply(facts(), model(['none', 'none']).ask)).rejects.toBeInstanceOf(WorkflowStepError);
  });

  it('skip goes on with the next step; fail (the default) fails the turn', async () => {
    const r = withPolicy('{ action: skip }');
    const m = model(['none', east]);
    const reply = await r.reply(facts(), m.ask);
    expect(reply.steps.map((s) => [s.step, s.outcome])).toEqual([
      ['flaky', 'skipped_after_failure'],
      ['act', 'ran'],
    ]);
    const r2 = withPolicy('{ action: fail }');
    const failing = r2.reply(facts(), model(['none']).ask);
    await expect(failing).rejects.toMatchObject({ name: 'WorkflowStepError', step: 'flaky', state: 'a' });
  });

  it("the provider's own errors pass through whatever the policy", async () => {
    const r = withPolicy('{ action: skip }');
    const err = Object.assign(new Error('503'), { name: 'ProviderTransientError' });
    await expect(r.reply(facts(), model([err]).ask)).rejects.toBe(err);
  });
});

describe('prompts and variables', () => {
  it('components go before or after the prompts of the steps they name, placeholders filled', async () => {
    const r = runnerOf(`states: [a]
initial_state: a
components:
  - { name: pre, text: "rules ({tiles_seen} seen)", inject_into: [act] }
  - { name: post, text: "be brief", inject_into: [act], position: after }
  - { name: elsewhere, text: "not here", inject_into: [think] }
steps:
  - { name: think, type: llm, prompt: "hm", tools: [], run_if: "false" }
  - { name: act, type: llm, prompt: "turn {turn}" }
`);
    const m = model([east]);
    await r.reply(facts({ turn: 4, tilesSeen: 9 }), m.ask);
    expect(m.asked[0].prompt).toBe('rules (9 seen)\n\nturn 4\n\nbe brief');
  });

  it('the built-in variables follow the results of the last actions', async () => {
    const prompt = [
      '{last_action_tool} {last_action_result} {last_action_ok} {last_new_tiles} {recent_moves_ok}',
      '{failed_moves_in_a_row} {actions_in_state} {steps_in_state} {phase} {stuck} {state}',
      '{actions_left_in_turn} {actions_taken}',
    ].join(' ');
    const r = runnerOf(`states: [a]
initial_state: a
steps:
  - { name: act, type: llm, prompt: "${prompt}" }
`);
    const m = model([east, east, east]);
    await r.reply(facts(), m.ask);
    expect(m.asked[0].prompt).toBe('  true 0 1 0 0 0 exploring false a 8 0');
    const results = [
      result('move_east', 'moved', 3),
      result('move_east', 'blocked_by_wall'),
      result('recall_all', 'recall_cooldown'),
      result('move_north', 'blocked_by_edge'),
      { ...result('move_south', 'moved'), executed: false }, // not executed: ignored
    ];
    await r.reply(facts({ results, actionsTaken: 4, phase: 'stuck', actionsLeftInTurn: 4 }), m.ask);
    // 1 of 3 moves succeeded; the last two moves failed (the recall in between is not a move);
    // steps_in_state counts the steps run in the state before this one
    expect(m.asked[1].prompt).toBe('move_north blocked_by_edge false 0 0.3333333333333333 2 4 1 stuck true a 4 4');
    await r.reply(facts({ results: [result('move_west', 'moved', 1)], actionsTaken: 5 }), m.ask);
    expect(m.asked[2].prompt).toBe('move_west moved true 1 0.5 0 5 2 exploring false a 8 5');
  });

  it('recent_moves_ok looks at the last 5 moves only', async () => {
    const r = runnerOf(`states: [a]
initial_state: a
steps:
  - { name: act, type: llm, prompt: "{recent_moves_ok}" }
`);
    const m = model([east, east]);
    const fails = Array.from({ length: 5 }, () => result('move_east', 'blocked_by_wall'));
    await r.reply(facts({ results: fails }), m.ask);
    expect(m.asked[0].prompt).toBe('0');
    await r.reply(facts({ results: [result('move_east', 'moved'), result('move_east', 'moved')] }), m.ask);
    expect(m.asked[1].prompt).toBe('0.4');
  });

  it('a condition that cannot be evaluated fails the turn, naming it', async () => {
    const r = runnerOf(`states: [a, b]
initial_state: a
variables: { n: 0 }
transitions: [{ from: a, to: b, condition: "10 / n > 1" }]
steps:
  - { name: think, type: llm, in_state: a, prompt: "p", tools: [] }
`);
    await expect(r.reply(facts(), model([]).ask)).rejects.toMatchObject({
      name: 'WorkflowStepError',
      step: 'transitions',
      state: 'a',
    });
  });
});

describe('loading a workflow', () => {
  const problem = (body: string) => {
    try {
      loadWorkflow(HEAD + body, 'test');
    } catch (e) {
      const err = e as WorkflowDefinitionError;
      expect(err).toBeInstanceOf(WorkflowDefinitionError);
      return `${err.where}: ${err.problem}`;
    }
    return 'loaded';
  };
  const steps = `steps:
  - { name: think, type: llm, prompt: "p", tools: [] }
  - { name: calc, type: code, set: { n: "n + 1" } }
`;

  it.each([
    [
      'a state listed twice',
      'states: [a, a]\ninitial_state: a\n' + steps,
      /^states\[1\] \(line 3\): state "a" is listed twice/,
    ],
    [
      'a step going to an unknown state',
      'states: [a]\ninitial_state: a\nvariables: { n: 0 }\n' +
        steps.replace('tools: [] }', 'tools: [], transition_to: b }'),
      /^steps\[0\]\.transition_to \(line 7\): "b" is not a state; states are: a/,
    ],
    [
      'one unknown state in a list of states',
      'states: [a]\ninitial_state: a\nvariables: { n: 0 }\n' +
        steps.replace('tools: [] }', 'tools: [], in_state: [a, z] }'),
      /^steps\[0\]\.in_state\[1\] \(line 7\): "z" is not a state/,
    ],
    [
      'a transition from an unknown state',
      'states: [a]\ninitial_state: a\nvariables: { n: 0 }\ntransitions: [{ from: q, to: a }]\n' + steps,
      /^transitions\[0\]\.from \(line 6\): "q" is not a state/,
    ],
    [
      'a component injected into a code step',
      'states: [a]\ninitial_state: a\nvariables: { n: 0 }\n' +
        'components: [{ name: c, text: "t", inject_into: [calc] }]\n' +
        steps,
      /^components\[0\]\.inject_into\[0\] \(line 6\): step "calc" is a code step/,
    ],
    [
      'a code step setting a built-in',
      'states: [a]\ninitial_state: a\nvariables: { n: 0 }\n' + steps.replace('n: "n + 1"', 'turn: "1"'),
      /^steps\[1\]\.set\.turn \(line 8\): "turn" is built in and read-only/,
    ],
    [
      'a reply saved into a number',
      'states: [a]\ninitial_state: a\nvariables: { n: 0 }\n' +
        steps.replace('tools: [] }', 'tools: [], save_reply_as: n }'),
      /^steps\[0\]\.save_reply_as \(line 7\): "n" must be a string variable/,
    ],
    [
      'a code step giving the wrong type',
      'states: [a]\ninitial_state: a\nvariables: { n: 0 }\n' + steps.replace('"n + 1"', '"\'x\'"'),
      /^steps\[1\]\.set\.n \(line 8\): gives string, expected int/,
    ],
    [
      'a run_if that is not a boolean',
      'states: [a]\ninitial_state: a\nvariables: { n: 0 }\n' + steps.replace('tools: [] }', 'tools: [], run_if: "n" }'),
      /^steps\[0\]\.run_if \(line 7\): gives int, expected bool/,
    ],
    [
      'an unknown placeholder in a component',
      'states: [a]\ninitial_state: a\nvariables: { n: 0 }\n' +
        'components: [{ name: c, text: "{nn}", inject_into: [think] }]\n' +
        steps,
      /^components\[0\]\.text \(line 6\): \{nn\} is not a variable/,
    ],
  ])('refuses %s, naming where', (_what, body, expected) => {
    expect(problem(body)).toMatch(expected);
  });

  it('an int where a double is declared is fine; a wildcard transition needs no state named *', () => {
    const body = `states: [a]
initial_state: a
variables: { x: 0.5 }
transitions: [{ from: "*", to: a }]
steps:
  - { name: calc, type: code, set: { x: "1" } }
  - { name: act, type: llm, prompt: "{x}" }
`;
    expect(problem(body)).toBe('loaded');
    expect(problem(body.replace('"1"', '"1.5"'))).toBe('loaded');
    expect(problem(body.replace('"1"', '"\'s\'"'))).toMatch(
      /^steps\[0\]\.set\.x \(line 8\): gives string, expected double/,
    );
  });

  it('tells a workflow from a plain prompt by its top-level workflow key', () => {
    expect(isWorkflowText(HEAD)).toBe(true);
    expect(isWorkflowText('You are in a maze.\nworkflow: not at the start of a line? it is')).toBe(true);
    expect(isWorkflowText('You are in a maze. Your workflow: explore.')).toBe(false);
    expect(isWorkflowText('workflow:\n')).toBe(false);
  });

  it('renders the system prompt into the stored text and keeps the rest as written', () => {
    const text = HEAD + 'states: [a]\ninitial_state: a\nsteps:\n  - { name: act, type: llm, prompt: "go" }\n';
    const out = renderWorkflowSystem(text, (s) => s.replace('{width}x{height}', '5x7'), 'test');
    expect(out).toContain('system: "maze 5x7"');
    expect(out).toContain('- { name: act, type: llm, prompt: "go" }');
    expect(loadWorkflow(out, 'rendered').definition.system).toBe('maze 5x7');
  });
});
