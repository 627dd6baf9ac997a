// Sweep and workflow files report every problem at once, each with its YAML
// path and line, sorted by line: the YAML syntax, the shape, and the checks
// on top (mazes, config values, labels, states, steps, placeholders, CEL).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSweep, SweepDefinitionError } from '../core/sweeps/sweep-spec.ts';
import { loadWorkflow, WorkflowDefinitionError } from '../core/engine/workflow/definition.ts';
import { registerSweepHandler } from '../functions/register-sweep.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { agents } from '../core/providers/agents.ts';
import { tableCounts, testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';
import { cli } from './support/cli.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});
const { expectInputError } = cli(() => db);

/** The error `load` throws, or undefined when it loads. */
function thrown(load: () => unknown): unknown {
  try {
    load();
  } catch (e) {
    return e;
  }
  return undefined;
}

// five independent problems, of every kind, on five lines
const BAD_SWEEP = `sweep: bad-sweep
agents:
  - { agent: random }
  - { agent: gpt }
  - { agent: frontier, label: random }
mazes:
  generators: [medium, perfect]
  sizes: [15, 20]
  seeds: [1]
config:
  max_moves: -3
repeats: 5
colour: blue
`;
const SWEEP_PROBLEMS = [
  ['agents[1].agent', 4, /^"gpt" is not one of: random, frontier, ollama, bedrock, openai$/],
  ['agents[2]', 5, /^two agents share the label "random"/],
  ['mazes.sizes[1]', 8, /^perfect 20: generator "perfect" needs an odd width, got 20; use 19 or 21$/],
  ['config.max_moves', 11, /^max_moves: Too small/],
  ['colour', 13, /^Unrecognized key: "colour"$/],
] as const;

// six independent problems: shape (a step type, an unknown key) and references, placeholders, CEL
const BAD_WORKFLOW = `workflow: bad_wf
system: "maze {width}x{height}"
states: [observe, act]
initial_state: sleep
variables:
  careful: false
transitions:
  - { from: observe, to: act }
  - { from: act, to: nowhere }
steps:
  - name: look
    type: llm
    in_state: observe
    prompt: "what do you see? {tiles_sen}"
  - name: count
    type: python
    set: { careful: "true" }
  - name: move
    type: llm
    in_state: act
    run_if: "carefull"
    prompt: "move"
colour: blue
`;
const WORKFLOW_PROBLEMS = [
  ['initial_state', 4, /^"sleep" is not a state; states are: observe, act$/],
  ['transitions[1].to', 9, /^"nowhere" is not a state/],
  ['steps[0].prompt', 14, /^\{tiles_sen\} is not a variable/],
  ['steps[1].type', 16, /discriminator/i],
  ['steps[2].run_if', 21, /^Unknown variable: carefull/],
  ['colour', 23, /^Unrecognized key: "colour"$/],
] as const;

/** The message lists every problem, one per line under the heading, in the order of the file. */
function expectListed(message: string, heading: string, problems: ReadonlyArray<readonly [string, number, RegExp]>) {
  const [first, ...lines] = message.split('\n');
  expect(first).toBe(`${heading}: ${problems.length} problems`);
  expect(lines).toHaveLength(problems.length);
  problems.forEach(([path, line, problem], i) => {
    const prefix = `  ${path} (line ${line}): `;
    expect(lines[i].startsWith(prefix), `${lines[i]} starts with ${prefix}`).toBe(true);
    expect(lines[i].slice(prefix.length)).toMatch(problem);
  });
}

describe('a sweep file reports every problem at once', () => {
  it('the shape, the mazes, the labels and the config: each with its path and line, sorted by line', () => {
    const e = thrown(() => loadSweep(BAD_SWEEP, 'sweeps/bad.yaml'));
    expect(e).toBeInstanceOf(SweepDefinitionError);
    const err = e as SweepDefinitionError;
    expect(err.name).toBe('SweepDefinitionError');
    expect(err.problems.map((p) => [p.path, p.line])).toEqual(SWEEP_PROBLEMS.map(([path, line]) => [path, line]));
    expectListed(err.message, 'sweep sweeps/bad.yaml', SWEEP_PROBLEMS);
    // the first problem stays at hand for callers that name one field
    expect(`${err.where}: ${err.problem}`).toMatch(/^agents\[1\]\.agent \(line 4\): "gpt"/);
  });

  it('one problem keeps the one-line message', () => {
    const text =
      'sweep: one\nagents:\n  - { agent: random }\n  - { agent: gpt }\n' +
      'mazes: { generators: [medium], sizes: [11], seeds: [1] }\n';
    const e = thrown(() => loadSweep(text, 'one.yaml'));
    expect((e as SweepDefinitionError).message).toBe(
      'sweep one.yaml: agents[1].agent (line 4): "gpt" is not one of: random, frontier, ollama, bedrock, openai',
    );
  });

  it('every YAML syntax error, with its line', () => {
    const e = thrown(() => loadSweep('sweep: [x\nagents: {a: \nmazes: b: c\n', 'syntax.yaml'));
    expect(e).toBeInstanceOf(SweepDefinitionError);
    const lines = (e as SweepDefinitionError).problems.map((p) => `${p.path} ${p.line}`);
    expect(lines).toContain('(yaml) 2');
    expect(lines).toContain('(yaml) 3');
  });

  it('keys that could reach prototypes are reported with the rest of the file', () => {
    const text = BAD_SWEEP.replace('config:\n', 'config:\n  __proto__: { polluted: true }\n');
    const e = thrown(() => loadSweep(text, 'proto.yaml')) as SweepDefinitionError;
    expect(e.problems.map((p) => `${p.path} (line ${p.line})`)).toEqual([
      'agents[1].agent (line 4)',
      'agents[2] (line 5)',
      'mazes.sizes[1] (line 8)',
      'config.__proto__ (line 11)',
      'config.max_moves (line 12)',
      'colour (line 14)',
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a long list stops at 50 lines and counts the rest', () => {
    const seeds = Array.from({ length: 60 }, (_, i) => -1 - i).join(', ');
    const text = BAD_SWEEP.replace('seeds: [1]', `seeds: [${seeds}]`);
    const e = thrown(() => loadSweep(text, 'many.yaml')) as SweepDefinitionError;
    expect(e.problems).toHaveLength(65);
    const lines = e.message.split('\n');
    expect(lines[0]).toBe('sweep many.yaml: 65 problems');
    expect(lines).toHaveLength(1 + 50 + 1);
    expect(lines.at(-1)).toBe('  ... and 15 more');
  });
});

describe('RegisterSweep (the AWS sweep machine) refuses a bad sweep with every problem', () => {
  it('throws InvalidInputError (the name Step Functions catches) listing all five; nothing is written', async () => {
    const before = await tableCounts(db);
    const register = registerSweepHandler({ store: new PgStore(db), agents, now: () => new Date() });
    const err = await register({ sweep: { id: 'bad-sweep', specText: BAD_SWEEP } }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.name).toBe('InvalidInputError');
    expectListed(err!.message, 'sweep "bad-sweep"', SWEEP_PROBLEMS);
    expect(await tableCounts(db)).toEqual(before);
  });
});

describe('a workflow file reports every problem at once', () => {
  it('the shape, the states, the placeholders and the expressions: each with its path and line', () => {
    const e = thrown(() => loadWorkflow(BAD_WORKFLOW, '"study/v1"'));
    expect(e).toBeInstanceOf(WorkflowDefinitionError);
    const err = e as WorkflowDefinitionError;
    expect(err.name).toBe('WorkflowDefinitionError');
    expect(err.problems.map((p) => [p.path, p.line])).toEqual(WORKFLOW_PROBLEMS.map(([path, line]) => [path, line]));
    expectListed(err.message, 'workflow "study/v1"', WORKFLOW_PROBLEMS);
  });

  it('a check that needs an invalid piece waits for it, the others still run', () => {
    // states[1] is not a name: references to states cannot be judged, but the placeholder can
    const text = BAD_WORKFLOW.replace('states: [observe, act]', 'states: [observe, 5]');
    const err = thrown(() => loadWorkflow(text, 'w')) as WorkflowDefinitionError;
    expect(err.problems.map((p) => p.path)).toEqual([
      'states[1]',
      'steps[0].prompt',
      'steps[1].type',
      'steps[2].run_if',
      'colour',
    ]);
  });
});

describe('ariadne sweep and ariadne workflow list every problem of a bad file', () => {
  const dir = tempDir('file-problems');
  /** stderr: the heading, then each problem's path and line, one a line, in order. */
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const listing = (heading: string, problems: ReadonlyArray<readonly [string, number, RegExp]>) =>
    new RegExp(
      [
        literal(`${heading}: ${problems.length} problems`),
        ...problems.map(([path, line]) => `${literal(`  ${path} (line ${line}): `)}.*`),
      ].join('\n'),
    );

  it('ariadne sweep bad.yaml exits 2 and names all five problems', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, BAD_SWEEP);
    await expectInputError(['sweep', file], listing(`sweep ${file}`, SWEEP_PROBLEMS));
  });

  it('ariadne workflow bad.yaml exits 2 and names all six problems', async () => {
    const file = join(dir, 'bad-workflow.yaml');
    writeFileSync(file, BAD_WORKFLOW);
    await expectInputError(['workflow', file], listing(`workflow ${file}`, WORKFLOW_PROBLEMS));
  });
});
