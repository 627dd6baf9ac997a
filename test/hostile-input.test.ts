// Hostile input, as tables: every place a researcher or caller hands Ariadne data (execution input, maze JSON, sweep
// and workflow YAML, parameters, CLI options) gets wrong types, huge numbers, 10 MB strings, SQL fragments, path
// traversal, control characters and prototype-pollution keys; each is refused naming the field, nothing written or
// crashed. A full run with hostile names reads them back byte for byte, and secrets stay out of everything stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { STATES } from '../core/machine/states.ts';
import { parseMazeJson } from '../core/maze/maze-file.ts';
import { loadSweep, SweepDefinitionError } from '../core/sweeps/sweep-spec.ts';
import { loadWorkflow, WorkflowDefinitionError } from '../core/engine/workflow/definition.ts';
import { resolveParameters } from '../core/config/parameters.ts';
import { tableCounts, testDatabase, type TestDatabase } from './support/db.ts';
import { scriptedAgents } from './support/scripted-agent.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import { cli } from './support/cli.ts';
import { loadReplay } from '../reports/replay-data.ts';
import { replayHtml } from '../reports/replay-page.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});

const HUGE = 'x'.repeat(10 * 2 ** 20);
const SQL = "'; DROP TABLE experiments; --";
const TRAVERSAL = '../../../../etc/passwd';
const CONTROL = 'qwen\u0000\u001b[2J';
const base = { agent: 'random', maze: { generator: 'medium', size: 11, seed: 1 } };
const withPollution = (json: string) => JSON.parse(json) as Record<string, unknown>;

describe('StartExecution input: refused with the field named, nothing written', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['agent of the wrong type', { ...base, agent: 42 }, /agent/],
    ['an unknown agent', { ...base, agent: SQL }, /agent/],
    ['a huge size', { ...base, maze: { generator: 'medium', size: 1e12, seed: 1 } }, /maze/],
    ['a negative size', { ...base, maze: { generator: 'medium', size: -5, seed: 1 } }, /maze/],
    ['a fractional seed', { ...base, maze: { generator: 'medium', size: 11, seed: 1.5 } }, /maze/],
    ['a 10 MB model name', { ...base, agent: 'ollama', model: HUGE }, /model/],
    [
      'control characters in the model',
      { ...base, agent: 'ollama', model: CONTROL },
      /model: printable characters only/,
    ],
    ['an SQL fragment as experiment id', { ...base, experimentId: SQL }, /experimentId/],
    ['path traversal as experiment id', { ...base, experimentId: TRAVERSAL }, /experimentId/],
    ['max_moves of the wrong type', { ...base, config: { max_moves: '10' } }, /config\.max_moves/],
    ['max_moves far too large', { ...base, config: { max_moves: Number.MAX_SAFE_INTEGER } }, /config\.max_moves/],
    ['NaN-like vision range', { ...base, config: { vision_range: -1 } }, /config\.vision_range/],
    ['an unknown config key', { ...base, config: { max_mooves: 5 } }, /config/],
    [
      '__proto__ in the input',
      withPollution('{"agent":"random","maze":{"generator":"medium","size":11},"__proto__":{"polluted":true}}'),
      /__proto__|Unrecognized/,
    ],
    [
      '__proto__ in the config',
      withPollution(
        '{"agent":"random","maze":{"generator":"medium","size":11},"config":{"__proto__":{"max_moves":1}}}',
      ),
      /config/,
    ],
    [
      'constructor.prototype in the maze',
      withPollution('{"agent":"random","maze":{"generator":"medium","size":11,"constructor":{"prototype":{"x":1}}}}'),
      /maze/,
    ],
    [
      'an inline grid with a bad tile',
      {
        agent: 'random',
        maze: {
          grid: [
            [0, 7],
            [0, 0],
          ],
          start: { x: 0, y: 0 },
        },
      },
      /maze/,
    ],
    [
      'an inline grid far too big',
      { agent: 'random', maze: { grid: Array.from({ length: 300 }, () => [0]), start: { x: 0, y: 0 } } },
      /maze/,
    ],
    ['not an object at all', [1, 2, 3], /InvalidInputError|input: .*expected object/],
    [
      'a sweep reference to a sweep that does not exist',
      { ...base, sweep: { id: 'nope', cell: 0, repeat: 1, attempt: 1 } },
      /sweep "nope" has no cell 0/,
    ],
  ];
  it.each(cases)('%s', async (_what, input, field) => {
    const before = await tableCounts(db);
    const run = runLocalExperiment(input as never, { db, retryIntervals: { [STATES.StartExperiment]: 0 } });
    await expect(run).rejects.toThrow(field);
    expect(await tableCounts(db)).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('files and parameters: refused with the field named', () => {
  it.each([
    ['not JSON', '{"grid": [[0, 1], [1', /maze\.json is not valid JSON/],
    ['a wrong type', '{"grid": "walls", "start": {"x": 0, "y": 0}}', /grid/],
    [
      '__proto__ keys',
      '{"__proto__": {"polluted": 1}, "grid": [[0,0],[0,2]], "start": {"x": 0, "y": 0}}',
      /__proto__|Unrecognized|grid/,
    ],
    [
      'a huge grid',
      JSON.stringify({ grid: Array.from({ length: 1000 }, () => Array(1000).fill(0)), start: { x: 0, y: 0 } }),
      /grid|size|201/,
    ],
    ['a start in a wall', '{"grid": [[1,0,0],[0,0,0],[0,0,2]], "start": {"x": 0, "y": 0}}', /start/],
  ])('maze JSON: %s', (_what, text, message) => {
    expect(() => parseMazeJson(text, 'maze.json')).toThrow(message);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  const SWEEP =
    'sweep: hostile\nagents: [{ agent: random }]\nmazes: { generators: [medium], sizes: [11], seeds: [1] }\n';
  it.each([
    ['an SQL fragment as name', SWEEP.replace('sweep: hostile', `sweep: "${SQL}"`), /^sweep /],
    ['path traversal as name', SWEEP.replace('sweep: hostile', `sweep: "${TRAVERSAL}"`), /^sweep /],
    ['a huge seed', SWEEP.replace('seeds: [1]', 'seeds: [1e20]'), /mazes\.seeds\[0\]/],
    ['a negative size', SWEEP.replace('sizes: [11]', 'sizes: [-11]'), /mazes\.sizes\[0\]/],
    ['__proto__ as a key', SWEEP + '__proto__: { polluted: true }\n', /__proto__/],
    ['a 10 MB description', SWEEP + `description: "${'d'.repeat(3_000)}"\n`, /description/],
    [
      'YAML alias bombs',
      'a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, ' +
        '*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n' +
        SWEEP,
      /alias|aliases|Unrecognized|\(yaml\)|\(root\)/i,
    ],
  ])('sweep YAML: %s', (_what, text, path) => {
    let error: unknown;
    try {
      loadSweep(text, 'sweep.yaml');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SweepDefinitionError);
    expect(`${(error as SweepDefinitionError).path} ${(error as SweepDefinitionError).problem}`).toMatch(path);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  const WF =
    'workflow: w\nsystem: s\nstates: [a]\ninitial_state: a\nsteps:\n  - { name: x, type: llm, prompt: "go" }\n';
  it.each([
    [
      'a JS expression',
      WF.replace('prompt: "go" }', 'prompt: "go", run_if: "require(\'fs\')" }'),
      /steps\[0\]\.run_if/,
    ],
    ['__proto__ as a variable', WF + 'variables: { __proto__: 1 }\n', /variables/],
    ['control characters in a state name', WF.replace('states: [a]', 'states: ["a\\u0007"]'), /states\[0\]/],
    ['a huge prompt', WF.replace('prompt: "go"', `prompt: "${'p'.repeat(30_000)}"`), /steps\[0\]\.prompt/],
  ])('workflow YAML: %s', (_what, text, path) => {
    let error: unknown;
    try {
      loadWorkflow(text, 'wf.yaml');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WorkflowDefinitionError);
    expect((error as WorkflowDefinitionError).path).toMatch(path);
  });

  it.each([
    ['a number that is not one', '/ariadne/config/max_moves', 'ten', /max_moves/],
    ['a huge number', '/ariadne/config/max_moves', '1e300', /max_moves/],
    ['an SQL fragment', '/ariadne/config/success_rule', SQL, /success_rule/],
    ['path traversal in the name', `/ariadne/config/${TRAVERSAL}`, '1', /not a known Ariadne parameter/],
    ['__proto__ as a key', '/ariadne/config/__proto__', '{"max_moves": 1}', /__proto__/],
  ])('parameter values: %s', (_what, name, value, message) => {
    expect(() => resolveParameters('/ariadne', [{ name, value, secure: false }])).toThrow(message);
    expect(({} as Record<string, unknown>).max_moves).toBeUndefined();
  });
});

describe('CLI options: exit 2 naming the option, nothing written', () => {
  it.each([
    [['run', '--max-moves', '99999999999999999999'], /--max-moves must be a whole number/],
    [['run', '--size', '-21'], /--size/],
    [['run', '--experiment-id', SQL], /experimentId|experiment-id/],
    [['run', '--maze-file', TRAVERSAL], /--maze-file ".*etc\/passwd" (cannot be read|is not valid JSON)|maze/],
    [['run', '--provider', 'ollama', '--model', 'qwen\u001b[2J\u0007'], /model: printable characters only/],
    [['run', '--agent', HUGE.slice(0, 100_000)], /--agent ".*" is not one of/],
    [['sweep', TRAVERSAL], /sweep file ".*etc\/passwd" cannot be read|sweep/],
    [['replay', SQL], /no experiment with id/],
  ])('ariadne %#', async (args, message) => cli(() => db).expectInputError(args, message));
});

describe('hostile text through a full run', () => {
  const HOSTILE =
    `'); DROP TABLE actions; -- </script><script>window.__pwned = 1</script> \u202e ` +
    `${'\u{1F600}'} "quotes" \\ backslash`;

  it('names, prompts and reasoning come back byte for byte; the replay shows them as text, not markup', async () => {
    const model = `sim:${"robert'); DROP TABLE experiments;--"}`;
    const sim = new OllamaSim({ models: [model], callsPerReply: 1 });
    const url = await sim.listen();
    try {
      const { experimentId } = await runLocalExperiment(
        {
          agent: 'random',
          maze: { generator: 'medium', size: 11, seed: 1 },
          config: { max_moves: 6, max_actions_per_turn: 3 },
        },
        {
          db,
          agents: scriptedAgents(
            [
              ['move_east', 'move_south', 'move_north'],
              ['move_west', 'move_east', 'move_south'],
            ],
            [],
            HOSTILE,
          ),
        },
      );
      const acts = (
        await db.pool.query(
          'SELECT reasoning, arguments, assistant_text FROM actions WHERE experiment_id = $1 AND ' +
            'executed ORDER BY step_number',
          [experimentId],
        )
      ).rows;
      expect(acts.length).toBeGreaterThan(0);
      for (const a of acts) {
        expect(a.reasoning).toBe(HOSTILE);
        expect(a.arguments.reasoning).toBe(HOSTILE);
      }
      expect(acts[0].assistant_text).toBe(HOSTILE);
      const html = replayHtml(await loadReplay(db, experimentId!));
      expect(html).not.toContain('<script>window.__pwned');
      // Ollama: a model name with quotes and SQL, stored and read back as given
      const { summary } = await runLocalExperiment(
        {
          agent: 'ollama',
          model,
          maze: { generator: 'medium', size: 11, seed: 1 },
          config: { max_moves: 4, ollama: { host: url } },
        },
        { db },
      );
      expect(summary).toMatchObject({ model });
      expect(sim.requests.filter((r) => r.path === '/api/chat')[0].body.model).toBe(model);
    } finally {
      await sim.close();
    }
  });

  it('secrets stay out of the config snapshot, the logged calls, errors and the replay', async () => {
    const key = 'sk-very-secret-ollama-key-123';
    const sim = new OllamaSim({ callsPerReply: 1 });
    const url = await sim.listen();
    process.env.OLLAMA_API_KEY = key;
    try {
      const { experimentId } = await runLocalExperiment(
        {
          agent: 'ollama',
          model: 'qwen2.5:7b',
          maze: { generator: 'medium', size: 11, seed: 1 },
          config: { max_moves: 4, ollama: { host: url } },
        },
        { db },
      );
      expect(sim.requests.find((r) => r.path === '/api/chat')!.headers.authorization).toBe(`Bearer ${key}`);
      const stored = JSON.stringify(
        (
          await db.pool.query(
            `SELECT e.*, (SELECT json_agg(l) FROM llm_calls l WHERE l.experiment_id = e.id) AS calls,
                (SELECT json_agg(a) FROM actions a WHERE a.experiment_id = e.id) AS acts
             FROM experiments e WHERE e.id = $1`,
            [experimentId],
          )
        ).rows,
      );
      expect(stored).not.toContain(key);
      expect(replayHtml(await loadReplay(db, experimentId!))).not.toContain(key);
      const failed = runLocalExperiment(
        {
          agent: 'ollama',
          model: 'no-such-model',
          maze: { generator: 'medium', size: 11, seed: 1 },
          config: { ollama: { host: url } },
        },
        { db },
      );
      await expect(failed).rejects.toThrow(/no-such-model/);
      const reasons = JSON.stringify((await db.pool.query('SELECT failure_reason FROM experiments')).rows);
      expect(reasons).not.toContain(key);
    } finally {
      delete process.env.OLLAMA_API_KEY;
      await sim.close();
    }
  });
});
