// --json on every command that prints results: each command run as the CLI runs it, its stdout parsed as one JSON
// document and checked against what it did. The walk is over the program's own commands, so a new command
// without a case here fails the first test.
import { statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../bin/cli/program.ts';
import { startExperiment } from '../core/engine/experiment.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { SfnSim } from '../simulators/sfn-sim.ts';
import { CloudFormationSim } from '../simulators/cloudformation-sim.ts';
import { cli, ROOT } from './support/cli.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';

let db: TestDatabase;
const sfn = new SfnSim();
let endpoint = '';
const MACHINE = 'arn:aws:states:eu-west-1:123456789012:stateMachine:AriadneExperiments';
// a deployed stack's outputs, for `ariadne policy`
const cfn = new CloudFormationSim([
  {
    name: 'Ariadne',
    status: 'CREATE_COMPLETE',
    outputs: {
      StateMachineArn: MACHINE,
      SweepStateMachineArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:AriadneSweeps',
      SweepBucketName: 'ariadne-sweeps',
      DatabaseClusterArn: 'arn:aws:rds:eu-west-1:123456789012:cluster:ariadne',
      DatabaseSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ariadne-AbCdEf',
      DatabaseReaderSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ariadne-reader-AbCdEf',
      BedrockModels: 'global.anthropic.claude-sonnet-4-6',
      DatabaseName: 'ariadne',
    },
  },
]);
let cfnEndpoint = '';
beforeAll(async () => {
  db = await testDatabase();
  endpoint = await sfn.listen();
  cfnEndpoint = await cfn.listen();
  // an experiment a dead process left running, for resume
  await startExperiment(
    {
      experimentId: 'json-resume',
      agent: 'random',
      provider: 'baseline',
      agentSeed: 1,
      maze: { kind: 'generated', spec: { generator: 'medium', width: 11, height: 11, seed: 1 } },
      config: { max_moves: 40 },
    },
    new PgStore(db),
  );
});
afterAll(async () => {
  await sfn.close();
  await cfn.close();
  await db.drop();
});
const { ariadne } = cli(() => db);

const user = tempDir('cli-json');
const sweepFile = join(user, 'json-sweep.yaml');
writeFileSync(
  sweepFile,
  [
    'sweep: json-sweep',
    'agents: [{ agent: random }, { agent: frontier }]',
    'mazes: { generators: [medium], sizes: [11], seeds: [1] }',
    'config: { max_moves: 60 }',
    'repeats: 2',
    'max_concurrency: 2',
  ].join('\n'),
);
const AWS = {
  AWS_ACCESS_KEY_ID: 'sim',
  AWS_SECRET_ACCESS_KEY: 'sim',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: '1',
};

/** Files a command says it wrote: absolute, under the user's directory, the size it says. */
function expectWritten(files: Array<{ path: string; bytes: number }>): void {
  expect(files.length).toBeGreaterThan(0);
  for (const f of files) {
    expect(isAbsolute(f.path)).toBe(true);
    expect(f.path.startsWith(join(user, 'ariadne-output'))).toBe(true);
    expect(statSync(f.path).size).toBe(f.bytes);
  }
}

type Json = Record<string, unknown> & { files?: Array<{ path: string; bytes: number }> };

/**
 * One invocation per command (in an order where each finds what it needs; labelled by the command, then any
 * variant), and what its JSON must say.
 */
const CASES: Array<[string, () => string[], (json: unknown) => void]> = [
  [
    'secret',
    () => ['secret', '--prefix', '/lab'],
    (j) =>
      expect(j).toEqual([
        { name: 'ollama_api_key', parameter: '/lab-secrets/ollama_api_key', read_by: 'InvokeOllamaAgent' },
        { name: 'openai_api_key', parameter: '/lab-secrets/openai_api_key', read_by: 'InvokeOpenAIAgent' },
      ]),
  ],
  [
    'suite',
    () => ['suite', 'show', 'ariadne-mazes/v1'],
    (j) => expect(j).toMatchObject({ suite: 'ariadne-mazes/v1', version: 1 }),
  ],
  [
    'suite verify',
    () => ['suite', 'verify', 'ariadne-mazes/v1'],
    (j) => expect(j).toMatchObject({ identical: 120, mismatches: [] }),
  ],
  [
    'run',
    () => ['run', '--agent', 'frontier', '--maze', 'light', '--size', '11', '--experiment-id', 'json-run'],
    (j) => expect(j).toMatchObject({ experiment_id: 'json-run', status: 'completed', goal_found: true }),
  ],
  [
    'rerun',
    () => ['rerun', 'json-run', '--replay', '--experiment-id', 'json-rerun'],
    (j) => expect(j).toMatchObject({ experiment_id: 'json-rerun', status: 'completed', goal_found: true }),
  ],
  [
    'fork',
    () => ['fork', 'json-run', '--at-step', '3', '--experiment-id', 'json-fork'],
    (j) => expect(j).toMatchObject({ experiment_id: 'json-fork', status: 'completed', goal_found: true }),
  ],
  [
    'resume',
    () => ['resume', 'json-resume'],
    (j) => expect(j).toMatchObject({ experiment_id: 'json-resume', status: 'timeout', actions: 40 }),
  ],
  ['sweep', () => ['sweep', sweepFile], (j) => expect(j).toMatchObject({ sweep: 'json-sweep', done: 4, failed: 0 })],
  [
    'sweep status',
    () => ['sweep', 'status', 'json-sweep'],
    (j) => expect(j).toMatchObject({ sweep: { sweep_id: 'json-sweep', runs: 4, completed: 4 }, running: [] }),
  ],
  [
    'mazes',
    () => ['mazes'],
    (j) => {
      expect(j).toHaveLength(13);
      expect((j as Json[]).find((g) => g.name === 'perfect')).toMatchObject({ oddSizes: true });
    },
  ],
  [
    'maze',
    () => ['maze', '--maze', 'spiral', '--size', '11', '--seed', '2'],
    (j) => {
      expect(j).toMatchObject({ format: 'ariadne-maze', generator: 'spiral', width: 11, seed: 2 });
      expect((j as { grid: unknown[] }).grid).toHaveLength(11);
    },
  ],
  [
    'maze --out',
    () => ['maze', '--maze', 'spiral', '--size', '11', '--seed', '2', '--out'],
    (j) => {
      const { file, bytes } = j as { file: string; bytes: number };
      expect(file).toBe(join(user, 'ariadne-output', 'maze-spiral-11x11-s2.json'));
      expect(statSync(file).size).toBe(bytes);
      expect(j).toMatchObject({ generator: 'spiral', width: 11 });
      expect(j).not.toHaveProperty('grid');
    },
  ],
  [
    'list',
    () => ['list', '--sweep', 'json-sweep'],
    (j) =>
      expect((j as Json[]).map((r) => r.experiment_id).sort()).toEqual(
        [0, 1].flatMap((c) => [1, 2].map((r) => `json-sweep-c${c}-r${r}`)),
      ),
  ],
  [
    'summary',
    () => ['summary', 'json-run'],
    (j) => {
      expect(j).toMatchObject({ experiment_id: 'json-run', provider: 'baseline', signal_counts: {} });
      expect((j as { phases: unknown[] }).phases.length).toBeGreaterThan(0);
    },
  ],
  [
    'replay',
    () => ['replay', 'json-run'],
    (j) => {
      expect(j).toMatchObject({ experiment_id: 'json-run' });
      expectWritten((j as Json).files!);
      expect((j as Json).files![0].path).toBe(join(user, 'ariadne-output', 'replay-json-run.html'));
    },
  ],
  [
    'report',
    () => ['report', 'json-sweep'],
    (j) => {
      const files = (j as Json).files!;
      expectWritten(files);
      expect(j).toMatchObject({ sweep: 'json-sweep', report: files[0].path, replays: files.length - 1 });
    },
  ],
  [
    'export',
    () => ['export', 'json-sweep', '--format', 'jsonl'],
    (j) => {
      expectWritten((j as Json).files!);
      expect((j as Json).files!.map((f) => (f as { rows?: number }).rows)).toEqual([4, expect.any(Number)]);
    },
  ],
  [
    'compare',
    () => ['compare', 'json-sweep', 'random', 'frontier'],
    (j) => expect(j).toMatchObject({ sweep: 'json-sweep', a: 'random', b: 'frontier', pairs: 2 }),
  ],
  [
    'compare --all',
    () => ['compare', 'json-sweep', '--all'],
    (j) =>
      expect(j).toMatchObject({
        sweep: 'json-sweep',
        agents: ['frontier', 'random'],
        groups: [{ settings: {}, tests: 1, pairs: [{ a: 'frontier', b: 'random', pairs: 2, mazes: 1 }] }],
      }),
  ],
  [
    'stats',
    () => ['stats', 'json-sweep'],
    (j) => {
      expect(j).toMatchObject({ sweep: 'json-sweep', factors: ['label'] });
      expect((j as { rows: Json[] }).rows.map((r) => [r.label, r.n])).toEqual([
        ['frontier', 2],
        ['random', 2],
      ]);
    },
  ],
  [
    'replicate',
    () => ['replicate', 'mazeeval'],
    (j) =>
      expect(j).toMatchObject({
        protocol: 'mazeeval',
        published: [{ id: 'o3-english', value: 1, source: 'einarsson2025' }],
        sources: { einarsson2025: { arxiv: '2507.20395' } },
      }),
  ],
  [
    // a sweep that did not run the protocol: its number finds no group, and says so
    'replicate --sweep',
    () => ['replicate', 'mazeeval', '--sweep', 'json-sweep'],
    (j) =>
      expect((j as { comparison: unknown }).comparison).toMatchObject({
        sweep: 'json-sweep',
        differs_from_protocol: expect.arrayContaining(['agents', 'mazes.generators', 'config.observation']),
        rows: [{ id: 'o3-english', group: null, verdict: { verdict: 'no verdict' } }],
      }),
  ],
  ['sql', () => ['sql', 'SELECT 2 + 3 AS five'], (j) => expect(j).toEqual([{ five: 5 }])],
  [
    'plan',
    () => ['plan', '--difference', '0.2', '--base-rate', '0.5', '--maze-sd', '1'],
    (j) => {
      expect(j).toMatchObject({ model: { base: 0, mazeSd: 1 } });
      const options = (j as { options: Json[] }).options;
      expect(options.map((o) => o.repeats)).toEqual([1, 2, 3, 5]);
      for (const o of options) expect(o.power).toBeGreaterThanOrEqual(0.8);
    },
  ],
  [
    'workflow',
    () => ['workflow', join(ROOT, 'examples', 'workflows', 'observe-plan-act.yaml')],
    (j) => expect(j).toMatchObject({ valid: true, workflow: 'observe_plan_act', states: ['observe', 'plan', 'act'] }),
  ],
  [
    'launch',
    () => ['launch', '--state-machine-arn', MACHINE, '--endpoint', endpoint, '--agent', 'random', '--repeat', '2'],
    (j) => {
      expect(j).toHaveLength(2);
      for (const e of j as Json[]) expect(sfn.executions.has(e.executionArn as string)).toBe(true);
      expect(j).toMatchObject([{ already: false }, { already: false }]);
    },
  ],
  [
    'launch --dry-run',
    () => ['launch', '--state-machine-arn', MACHINE, '--agent', 'frontier', '--dry-run'],
    (j) => expect(j).toMatchObject([{ stateMachineArn: MACHINE, input: expect.stringContaining('"frontier"') }]),
  ],
  [
    'doctor',
    () => ['doctor'],
    (j) =>
      expect(j).toMatchObject([
        { check: 'database', ok: true },
        { check: 'migrations', ok: true },
      ]),
  ],
  [
    'status (running now, from the database)',
    () => ['status'],
    (j) => expect(j).toMatchObject({ sweep: null, running: expect.any(Array) }),
  ],
  [
    'status',
    () => ['status', [...sfn.executions.keys()][0], '--endpoint', endpoint],
    (j) => expect(j).toMatchObject({ executionArn: [...sfn.executions.keys()][0], status: 'RUNNING' }),
  ],
  [
    'policy researcher',
    () => ['policy', 'researcher', '--region', 'eu-west-1', '--endpoint', cfnEndpoint],
    (j) =>
      expect(j).toMatchObject({
        Version: '2012-10-17',
        Statement: expect.arrayContaining([
          expect.objectContaining({ Sid: 'LaunchExperimentsAndSweeps', Resource: expect.arrayContaining([MACHINE]) }),
        ]),
      }),
  ],
];

describe('--json on every command that prints results', () => {
  // play reads a person's moves from stdin: test/play-cli.test.ts pipes a game in and checks its --json
  it('has a case for every command but the servers (db, sim, view) and play', () => {
    const commands = buildProgram()
      .commands.map((c) => c.name())
      .filter((n) => !['db', 'sim', 'view', 'play'].includes(n));
    expect(new Set(CASES.map(([label]) => label.split(' ')[0]))).toEqual(new Set(commands));
  });

  it.each(CASES)('ariadne %s --json', async (_name, args, check) => {
    const r = await ariadne([...args(), '--json'], { INIT_CWD: user, ...AWS });
    expect(r.stderr).not.toMatch(/ariadne:/);
    expect(r.code).toBe(0);
    let json: unknown;
    expect(() => (json = JSON.parse(r.stdout))).not.toThrow();
    check(json);
  });
});
