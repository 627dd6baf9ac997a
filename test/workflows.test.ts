// Declarative workflows: a prompt version written as YAML states, steps and
// transitions, run end to end against the simulated Ollama server, and
// validated at load with the YAML path of every problem.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { STATES } from '../core/machine/states.ts';
import { ParameterCache } from '../core/config/parameters.ts';
import { fileSource } from '../core/config/file-source.ts';
import { loadWorkflow, WorkflowDefinitionError } from '../core/engine/workflow/definition.ts';
import { WorkflowRunner, initialMemory } from '../core/engine/workflow/runner.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import { BedrockSim } from '../simulators/bedrock-sim.ts';
import { tableCounts, testDatabase, type TestDatabase } from './support/db.ts';
import { parametersFile } from './support/parameters-file.ts';

let db: TestDatabase;
const ollama = new OllamaSim({ callsPerReply: 2 });
let ollamaUrl = '';
beforeAll(async () => {
  db = await testDatabase();
  ollamaUrl = await ollama.listen();
});
afterAll(async () => {
  await ollama.close();
  await db.drop();
});
beforeEach(() => {
  ollama.requests.length = 0;
  ollama.faults = [];
});

const WORKFLOW = `workflow: observe_plan_act
description: look, plan, then move; a code step counts the cycles
system: |
  You explore a maze of {width}x{height} tiles from ({start_x},{start_y}); you win when {success_text}.
states: [observe, plan, act, done]
initial_state: observe
variables:
  cycles: 0
  careful: false
  plan: ""
transitions:
  - { from: observe, to: plan }
  - { from: plan, to: act }
  - { from: plan, to: observe }
  - { from: act, to: observe, condition: "actions_in_state >= 4" }
components:
  - name: rules
    text: "Rules: never walk into the same wall twice (cycle {cycles})."
    inject_into: [decide, move]
steps:
  - name: look
    type: llm
    in_state: observe
    prompt: "Describe in one sentence what you see. Tiles seen so far: {tiles_seen}."
    tools: []
  - name: count
    type: code
    in_state: observe
    set:
      cycles: "cycles + 1"
      careful: "cycles >= 3"
  - name: broken
    type: code
    in_state: observe
    set: { cycles: "cycles / (cycles - cycles)" }
    on_failure: { action: skip }
  - name: caution
    type: llm
    in_state: plan
    run_if: "careful && !stuck"
    prompt: "CAUTION: you have planned {cycles} times. Write a plan in one line."
    tools: []
    save_reply_as: plan
  - name: decide
    type: transition
    in_state: plan
    prompt: "Act now, look again, or rest?"
    transition_map: { act: act, look: observe, rest: done }
  - name: move
    type: llm
    in_state: act
    prompt: "Plan: {plan}. Make your next moves."
    tools: [move_north, move_south, move_east, move_west]
`;

const indent = (text: string) =>
  text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');

async function runWorkflow(text: string, config: Record<string, unknown> = {}) {
  const file = parametersFile([`/ariadne/prompts/study/v1: |\n${indent(text)}`]);
  return runLocalExperiment(
    {
      agent: 'ollama',
      model: 'qwen2.5:7b',
      maze: { generator: 'medium', size: 15, seed: 3 },
      config: {
        prompt_version: 'study/v1',
        ollama: { host: ollamaUrl },
        retry: { max_attempts: 2, base_delay_ms: 1, max_delay_ms: 2, max_total_ms: 1_000, timeout_ms: 5_000 },
        ...config,
      },
    },
    { db, parameters: new ParameterCache(fileSource(file)), retryIntervals: { [STATES.InvokeOllamaAgent]: 0 } },
  );
}

describe('a workflow prompt version, end to end against the simulated Ollama server', () => {
  it(
    'runs steps in their states, a code step sets what a condition reads, transition steps follow the ' +
      'model, skip skips',
    async () => {
      // the first four model calls: look, decide ("look": back to observe), look,
      // decide ("rest": no edge to done, refused)
      ollama.faults = [
        { kind: 'say', text: 'A corridor.' },
        { kind: 'say', text: 'look' },
        { kind: 'say', text: 'More corridor.' },
        { kind: 'say', text: 'I would rather rest.' },
      ];
      const { experimentId, summary } = await runWorkflow(WORKFLOW);
      expect(summary).toMatchObject({ status: 'completed', goal_found: true });

      // the stored prompt is the workflow with its system prompt filled in
      const exp = (
        await db.pool.query('SELECT prompt_text, agent_memory FROM experiments WHERE id = $1', [experimentId])
      ).rows[0];
      expect(exp.prompt_text).toMatch(/^workflow: observe_plan_act/);
      expect(exp.prompt_text).toContain('You explore a maze of 15x15 tiles from');
      expect(exp.agent_memory.vars.cycles).toBeGreaterThanOrEqual(3);

      // every step ran in its state
      const calls = (
        await db.pool.query(
          'SELECT workflow_steps FROM llm_calls WHERE experiment_id = $1 ORDER BY turn_number, call_index',
          [experimentId],
        )
      ).rows;
      const steps = calls.flatMap((c) => c.workflow_steps) as Array<{
        step: string;
        state: string;
        outcome: string;
        detail?: string;
      }>;
      const home: Record<string, string> = {
        look: 'observe',
        count: 'observe',
        broken: 'observe',
        caution: 'plan',
        decide: 'plan',
        move: 'act',
      };
      for (const s of steps) expect(s.state).toBe(home[s.step]);
      // on_failure: skip: the failing code step is skipped every time, and the run goes on
      const broken = steps.filter((s) => s.step === 'broken');
      expect(broken.length).toBeGreaterThanOrEqual(3);
      for (const b of broken)
        expect(b).toMatchObject({
          outcome: 'skipped_after_failure',
          detail: expect.stringMatching(/division by zero/),
        });

      // the code step's variable drives run_if: caution runs only from the third cycle on
      const prompts = ollama.requests
        .filter((r) => r.path === '/api/chat')
        .map((r) => r.body.messages.at(-1).content as string);
      const cautions = prompts.filter((p) => p.includes('CAUTION'));
      const cycles = steps.filter((s) => s.step === 'count').length;
      expect(cautions.length).toBe(cycles - 2);
      expect(cautions[0]).toContain('you have planned 3 times');
      expect(steps.filter((s) => s.step === 'caution' && s.outcome === 'skipped').length).toBe(2);
      // its reply became {plan} in the move prompt; components were injected
      expect(prompts.some((p) => /Plan: I will head for the nearest unexplored tiles/.test(p))).toBe(true);
      expect(
        prompts
          .filter((p) => p.includes('Make your next moves'))
          .every((p) => /Rules: never walk into the same wall twice \(cycle \d+\)\.\n\nPlan: /.test(p)),
      ).toBe(true);
      // the move step offers only the moves; the look step offers no tool
      const requestTools = ollama.requests
        .filter((r) => r.path === '/api/chat')
        .map((r) => (r.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name));
      expect(requestTools[0]).toEqual([]);
      expect(requestTools.find((t) => t.length > 0)).toEqual(['move_north', 'move_south', 'move_east', 'move_west']);

      // the workflow's moves, in order: the model's choices followed, the invalid one refused and logged
      const moves = (
        await db.pool.query(
          `SELECT from_phase, to_phase, cause, refused FROM agent_state_transitions WHERE experiment_id = ` +
            `$1 AND machine = 'workflow' ORDER BY turn_number, seq`,
          [experimentId],
        )
      ).rows;
      expect(moves.slice(0, 5)).toEqual([
        { from_phase: 'observe', to_phase: 'plan', cause: 'end of state', refused: false },
        { from_phase: 'plan', to_phase: 'observe', cause: 'model chose look', refused: false },
        { from_phase: 'observe', to_phase: 'plan', cause: 'end of state', refused: false },
        { from_phase: 'plan', to_phase: 'done', cause: 'model chose rest', refused: true },
        { from_phase: 'plan', to_phase: 'act', cause: 'end of state', refused: false },
      ]);
      expect(moves.some((m) => m.from_phase === 'act' && m.cause === 'condition: actions_in_state >= 4')).toBe(true);
    },
  );

  it(
    'runs on Bedrock Converse too: tool results and the next step prompt share one user message; steps ' +
      'without tools carry tool traffic as text',
    async () => {
      const bedrock = new BedrockSim({ callsPerReply: 2 });
      const url = await bedrock.listen();
      process.env.AWS_ACCESS_KEY_ID = 'sim';
      process.env.AWS_SECRET_ACCESS_KEY = 'sim';
      try {
        const file = parametersFile([`/ariadne/prompts/study/v1: |\n${indent(WORKFLOW)}`]);
        const { summary } = await runLocalExperiment(
          {
            agent: 'bedrock',
            model: 'amazon.nova-lite-v1:0',
            maze: { generator: 'medium', size: 15, seed: 3 },
            config: { prompt_version: 'study/v1', bedrock: { endpoint: url, region: 'us-west-2' } },
          },
          { db, parameters: new ParameterCache(fileSource(file)), retryIntervals: { [STATES.InvokeBedrockAgent]: 0 } },
        );
        expect(summary).toMatchObject({ status: 'completed', goal_found: true });
        const converse = bedrock.requests.filter((r) => r.path.endsWith('/converse'));
        // a thinking step after moves: no toolConfig, and the earlier tool calls and results as plain text
        const thinking = converse.filter(
          (r) => !r.body.toolConfig && /move_(north|south|east|west) \{/.test(JSON.stringify(r.body.messages)),
        );
        expect(thinking.length).toBeGreaterThan(0);
        for (const r of thinking) expect(JSON.stringify(r.body.messages)).not.toMatch(/toolUse|toolResult/);
        // a move step after moves: the results and the step's prompt in one user message
        const acting = converse.find(
          (r) =>
            r.body.toolConfig && r.body.messages.at(-1).content.some((b: { toolResult?: unknown }) => b.toolResult),
        );
        expect(acting!.body.messages.at(-1).content.at(-1).text).toMatch(/Make your next moves/);
      } finally {
        await bedrock.close();
      }
    },
  );

  it('guards every step against num_ctx (recorded per reply) and refuses carried memory at start', async () => {
    const { experimentId } = await runWorkflow(WORKFLOW, { max_moves: 8 });
    const usage = (await db.pool.query('SELECT * FROM context_usage WHERE experiment_id = $1', [experimentId])).rows;
    expect(usage.length).toBeGreaterThan(0);
    for (const u of usage) {
      expect(u.context_window).toBe(32_768);
      expect(u.prompt_estimate).toBeGreaterThan(0);
    }
    await expect(runWorkflow(WORKFLOW, { memory: 'history' })).rejects.toThrow(/plain prompt versions only/);
    await expect(runWorkflow(WORKFLOW, { belief_probe_every: 2 })).rejects.toThrow(
      /belief_probe_every works with plain prompt versions only/,
    );
    // the short first steps fit; a later one, with the tools' schemas, does not: refused before it is sent
    await expect(
      runWorkflow(WORKFLOW, {
        context_policy: 'refuse',
        max_output_tokens: 64,
        ollama: { host: ollamaUrl, num_ctx: 320 },
      }),
    ).rejects.toThrow(/more than the 256 its context window leaves for it/);
  });

  it('a broken workflow in Parameter Store stops the start with its YAML path; nothing is written', async () => {
    const before = await tableCounts(db);
    const run = runWorkflow(WORKFLOW.replace('run_if: "careful && !stuck"', 'run_if: "carefull && !stuck"'));
    await expect(run).rejects.toThrow(
      /workflow "study\/v1": steps\[3\]\.run_if \(line 40\): Unknown variable: carefull/,
    );
    expect(await tableCounts(db)).toEqual(before);
  });
});

describe('workflow validation: each problem reported with its path in the YAML', () => {
  const broken: Array<[string, string, RegExp]> = [
    [
      'a YAML syntax error',
      WORKFLOW.replace('states: [observe, plan, act, done]', 'states: [observe, plan'),
      /^\(yaml\) \(line \d+\): /,
    ],
    [
      'an unknown key',
      WORKFLOW.replace('initial_state: observe', 'initial_state: observe\nstart_state: observe'),
      /^start_state \(line 7\): Unrecognized key/,
    ],
    [
      'an unknown initial state',
      WORKFLOW.replace('initial_state: observe', 'initial_state: sleep'),
      /^initial_state \(line 6\): "sleep" is not a state/,
    ],
    [
      'a transition to nowhere',
      WORKFLOW.replace('{ from: plan, to: act }', '{ from: plan, to: nowhere }'),
      /^transitions\[1\]\.to \(line 13\): "nowhere" is not a state/,
    ],
    [
      'an undefined variable in a condition',
      WORKFLOW.replace('actions_in_state >= 4', 'actions_in_stat >= 4'),
      /^transitions\[3\]\.condition \(line 15\): Unknown variable: actions_in_stat/,
    ],
    [
      'a syntax error in an expression',
      WORKFLOW.replace('"cycles + 1"', '"cycles + "'),
      /^steps\[1\]\.set\.cycles \(line 30\): Unexpected token/,
    ],
    [
      'a code step setting an undeclared variable',
      WORKFLOW.replace('careful: "cycles >= 3"', 'carefull: "cycles >= 3"'),
      /^steps\[1\]\.set\.carefull \(line 31\): "carefull" is not declared under variables/,
    ],
    [
      'a condition that is not a boolean',
      WORKFLOW.replace('actions_in_state >= 4', 'actions_in_state + 4'),
      /^transitions\[3\]\.condition \(line 15\): gives int, expected bool/,
    ],
    [
      'an unknown placeholder in a prompt',
      WORKFLOW.replace('Tiles seen so far: {tiles_seen}', 'Position: {x}'),
      /^steps\[0\]\.prompt \(line 24\): \{x\} is not a variable/,
    ],
    [
      'a step in an unknown state',
      WORKFLOW.replace('in_state: act', 'in_state: acting'),
      /^steps\[5\]\.in_state \(line 51\): "acting" is not a state/,
    ],
    [
      'a transition map to an unknown state',
      WORKFLOW.replace('rest: done', 'rest: sleep'),
      /^steps\[4\]\.transition_map\.rest \(line 48\): "sleep" is not a state/,
    ],
    [
      'components injected into an unknown step',
      WORKFLOW.replace('inject_into: [decide, move]', 'inject_into: [decide, walk]'),
      /^components\[0\]\.inject_into\[1\] \(line 19\): "walk" is not a step/,
    ],
    [
      'an unknown step type',
      WORKFLOW.replace(
        'type: code\n    in_state: observe\n    set:\n      cycles',
        'type: python\n    in_state: observe\n    set:\n      cycles',
      ),
      /^steps\[1\]\.type \(line 27\): /,
    ],
    [
      'a step defined twice',
      WORKFLOW.replace('name: broken', 'name: count'),
      /^steps\[2\]\.name \(line 32\): step "count" is defined twice/,
    ],
    [
      'a built-in variable redeclared',
      WORKFLOW.replace('  plan: ""', '  plan: ""\n  phase: "x"'),
      /^variables\.phase \(line 11\): "phase" is a built-in variable/,
    ],
  ];
  it.each(broken)('%s', (_what, text, expected) => {
    let error: unknown;
    try {
      loadWorkflow(text, 'test');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WorkflowDefinitionError);
    const e = error as WorkflowDefinitionError;
    expect(`${e.where}: ${e.problem}`).toMatch(expected);
    expect(e.name).toBe('WorkflowDefinitionError');
  });

  it('the reference workflow itself loads', () => {
    expect(loadWorkflow(WORKFLOW, 'test').definition.steps.map((s) => s.name)).toEqual([
      'look',
      'count',
      'broken',
      'caution',
      'decide',
      'move',
    ]);
  });
});

describe('the expression language cannot reach the host', () => {
  const hostile = [
    'process.exit(1)',
    'process',
    'require("child_process")',
    'globalThis',
    'this',
    'constructor',
    '"".constructor',
    'phase.constructor.constructor("return process")()',
    '__proto__',
    'phase.__proto__',
    'Function("return 1")()',
    'eval("1")',
    'import("fs")',
    '[].constructor',
    '{}.constructor',
    'phase["constructor"]',
    'cycles.toString',
    'Object.keys(phase)',
    'new Date()',
    'x => x',
  ];
  it.each(hostile)('%s is refused at load', (expression) => {
    const text = WORKFLOW.replace('actions_in_state >= 4', expression.replace(/"/g, '\\"'));
    expect(() => loadWorkflow(text, 'test')).toThrow(WorkflowDefinitionError);
    expect(() => loadWorkflow(text, 'test')).toThrow(/transitions\[3\]\.condition/);
  });

  it('values are data, never code: a reply that looks like code is just a string', async () => {
    const wf = loadWorkflow(WORKFLOW.replace('"cycles >= 3"', '"plan == \'process.exit(1)\' || cycles >= 3"'), 'test');
    const runner = new WorkflowRunner(wf, {
      ...initialMemory(wf),
      vars: { cycles: 0, careful: false, plan: 'process.exit(1)' },
    });
    const asked: string[] = [];
    const reply = await runner.reply(
      { turn: 1, actionsTaken: 0, actionsLeftInTurn: 8, tilesSeen: 5, phase: 'exploring', results: [] },
      (a) => {
        asked.push(a.step);
        return Promise.resolve(
          a.kind === 'transition'
            ? { text: 'act', calls: [] }
            : a.step === 'move'
              ? { text: '', calls: [{ name: 'move_east', arguments: {} }] }
              : { text: 'ok', calls: [] },
        );
      },
    );
    expect(runner.memory.vars.careful).toBe(true);
    expect(asked).toEqual(['look', 'caution', 'decide', 'move']);
    expect(reply.calls).toEqual([{ name: 'move_east', arguments: {} }]);
  });
});
