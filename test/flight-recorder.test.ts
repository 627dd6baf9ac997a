// The flight recorder: every model call of a run kept with its request (by content-addressed parts) and reply, and
// `ariadne rerun --replay` running the run again with its model server stopped, to the same trajectory; a request
// that differs from the recorded one (a prompt edited since) stops the replay at that call, naming the field.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAISim } from '../simulators/openai-sim.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import { sweepStatistics } from '../reports/sweep-statistics.ts';
import { cellText } from '../reports/stat-text.ts';
import { overDataApi } from '../simulators/rds-data-sim.ts';
import { replayScript, rerunRequest } from '../results/recorded-run.ts';
import { agentsWith } from '../core/providers/agents.ts';
import { sharedAgentDeps } from '../core/store/shared-agent-deps.ts';
import { answeredRequests } from '../core/store/fork-prefix-sql.ts';
import type { StartExecutionInput } from '../core/machine/contracts.ts';
import { fact } from '../aws-facts/facts.ts';
import { bodyParts, readManifests, storedManifest } from '../core/store/model-bodies-sql.ts';
import { sha256 } from '../core/providers/llm/model-request.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { ParameterCache } from '../core/config/parameters.ts';
import { fileSource } from '../core/config/file-source.ts';
import { cli } from './support/cli.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';

let db: TestDatabase;
const sim = new OpenAISim();
let base = '';
beforeAll(async () => {
  db = await testDatabase();
  base = `${await sim.listen()}/v1`;
});
afterAll(async () => {
  await sim.close().catch(() => undefined);
  await db.drop();
});
const { ariadne } = cli(() => db);

const dir = tempDir('recorder');
const parameters = join(dir, 'parameters.yaml');
/** The local parameters with one prompt version, `lab/v1`, of the given text. */
const prompt = (text: string) =>
  writeFileSync(parameters, `/ariadne/prompts/lab/v1: |\n  ${text} The maze is {width}x{height}; {goal_text}\n`);
const env = () => ({ ARIADNE_PARAMETERS: parameters });

const hashOf = async (id: string) =>
  (await db.pool.query<{ h: string }>('SELECT trajectory_hash AS h FROM experiments WHERE id = $1', [id])).rows[0]?.h;

describe('a run against the OpenAI-compatible simulator, recorded and replayed', () => {
  it('records each call: one exchange per call, the system prompt and tool schema stored once', async () => {
    prompt('Find the goal.');
    const args = ['run', '--provider', 'openai', '--model', 'gpt-4.1-mini', '--openai-base-url', base];
    const r = await ariadne(
      [...args, '--prompt-version', 'lab/v1', '--maze', 'medium', '--size', '11', '--seed', '4', '--max-moves', '60'],
      { ...env(), OPENAI_API_KEY: 'sk-test' },
    );
    expect(r.code, r.stderr).toBe(0);
    const { rows: runs } = await db.pool.query<{ id: string }>("SELECT id FROM experiments WHERE agent = 'openai'");
    expect(runs).toHaveLength(1);
    const id = runs[0].id;
    const { rows } = await db.pool.query<{ calls: number; exchanges: number; systems: number; tools: number }>(
      `SELECT (SELECT count(*) FROM llm_calls WHERE experiment_id = $1)::int AS calls,
         (SELECT count(*) FROM model_exchanges WHERE experiment_id = $1 AND answered_by = 'model')::int AS exchanges,
         (SELECT count(DISTINCT q.manifest ->> 'system') FROM model_exchanges x
            JOIN model_requests q USING (request_key) WHERE x.experiment_id = $1)::int AS systems,
         (SELECT count(DISTINCT q.manifest ->> 'tools') FROM model_exchanges x
            JOIN model_requests q USING (request_key) WHERE x.experiment_id = $1)::int AS tools`,
      [id],
    );
    expect(rows[0].calls).toBeGreaterThan(1);
    expect(rows[0]).toEqual({ calls: rows[0].calls, exchanges: rows[0].calls, systems: 1, tools: 1 });
    const stored = await db.pool.query<{ body: string }>(
      `SELECT b.body FROM model_bodies b WHERE b.sha256 IN (SELECT q.manifest ->> 'system' FROM model_exchanges x
         JOIN model_requests q USING (request_key) WHERE x.experiment_id = $1)`,
      [id],
    );
    expect(stored.rows).toHaveLength(1);
    expect(JSON.parse(stored.rows[0].body)).toMatch(/^Find the goal\. The maze is 11x11;/);
  });

  it('replays with the simulator stopped: every call answered from the record, the same trajectory hash', async () => {
    const { rows } = await db.pool.query<{ id: string }>("SELECT id FROM experiments WHERE agent = 'openai'");
    const original = rows[0].id;
    await sim.close();
    const r = await ariadne(['rerun', original, '--replay', '--experiment-id', 'replayed-1', '--json'], env());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/trajectory identical/);
    expect(await hashOf('replayed-1')).toBe(await hashOf(original));
    const { rows: answered } = await db.pool.query<{ answered_by: string; n: number }>(
      `SELECT answered_by, count(*)::int AS n FROM model_exchanges WHERE experiment_id = 'replayed-1'
       GROUP BY answered_by`,
    );
    const calls = await db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM llm_calls WHERE experiment_id = $1',
      [original],
    );
    expect(answered).toEqual([{ answered_by: 'replay', n: calls.rows[0].n }]);
    expect(JSON.parse(r.stdout)).toMatchObject({
      replay_of: original,
      replayed_requests: calls.rows[0].n,
      cached_requests: 0,
      input_tokens: 0,
    });
    const link = await db.pool.query("SELECT replay_of FROM experiments WHERE id = 'replayed-1'");
    expect(link.rows).toEqual([{ replay_of: original }]);
  });

  it('stops at the first call when the prompt text changed since, naming the field', async () => {
    const { rows } = await db.pool.query<{ id: string }>(
      "SELECT id FROM experiments WHERE agent = 'openai' AND replay_of IS NULL",
    );
    prompt('Find the exit.');
    const r = await ariadne(['rerun', rows[0].id, '--replay', '--experiment-id', 'diverged-1'], env());
    expect(r.code).toBe(1);
    const failed = await db.pool.query<{ status: string; failure_reason: string; actions_taken: number }>(
      "SELECT status, failure_reason, actions_taken FROM experiments WHERE id = 'diverged-1'",
    );
    expect(failed.rows[0]).toMatchObject({ status: 'failed', actions_taken: 0 });
    expect(failed.rows[0].failure_reason).toMatch(/replay diverged at turn 1, call 0: the request's system differs/);
  });

  it('refuses a run that is not there, naming it', async () => {
    const r = await ariadne(['rerun', 'no-such-run', '--replay']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no experiment no-such-run/);
  });
});

describe('ariadne fork: a run continued from the state after step K of another', () => {
  const forkSim = new OpenAISim({ callsPerReply: 3 });
  let url = '';
  let parent = '';
  beforeAll(async () => {
    url = `${await forkSim.listen()}/v1`;
    prompt('Find the goal.');
    const run = ['run', '--provider', 'openai', '--model', 'gpt-4.1-mini', '--openai-base-url', url];
    const maze = ['--maze', 'perfect', '--size', '41', '--seed', '8', '--max-moves', '200', '--set', 'memory=history'];
    const r = await ariadne([...run, ...maze, '--prompt-version', 'lab/v1', '--experiment-id', 'parent-200'], {
      ...env(),
      OPENAI_API_KEY: 'sk-test',
    });
    expect(r.code, r.stderr).toBe(0);
    parent = 'parent-200';
  });
  afterAll(() => forkSim.close());

  /** A run's executed actions up to `step`: what it did and where it ended up. */
  const stepsUpTo = async (id: string, step: number) =>
    (
      await db.pool.query(
        `SELECT step_number, tool, outcome, to_x, to_y, new_tiles_seen FROM actions
         WHERE experiment_id = $1 AND step_number <= $2 ORDER BY step_number`,
        [id, step],
      )
    ).rows;
  const signalsUpTo = async (id: string, step: number) =>
    (
      await db.pool.query(
        'SELECT step_number, detector FROM stuck_signals WHERE experiment_id = $1 AND step_number <= $2 ORDER BY seq',
        [id, step],
      )
    ).rows;
  /** The last step of the parent's turn that holds `near`: a fork there starts its own next turn. */
  const turnEnd = async (near: number) =>
    (
      await db.pool.query<{ k: number }>(
        `SELECT max(a.step_number)::int AS k FROM actions a WHERE a.experiment_id = $1 AND a.turn_number =
           (SELECT turn_number FROM actions WHERE experiment_id = $1 AND step_number = $2)`,
        [parent, near],
      )
    ).rows[0].k;

  it("at a turn's end near step 50: its steps, tiles, detectors and its next request are the parent's", async () => {
    const k = await turnEnd(50);
    const r = await ariadne(['fork', parent, '--at-step', String(k), '--experiment-id', 'fork-a'], {
      ...env(),
      OPENAI_API_KEY: 'sk-test',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`fork fork-a of parent-200 after step ${k}`);
    expect(r.stdout).toMatch(new RegExp(`fork of +parent-200 after step ${k} `));
    expect(r.stdout).toMatch(/from the record +\d+ replayed model request\(s\): no server asked, no spend/);
    const mine = await stepsUpTo('fork-a', k);
    expect(mine).toHaveLength(k);
    expect(mine).toEqual(await stepsUpTo(parent, k));
    expect(await signalsUpTo('fork-a', k)).toEqual(await signalsUpTo(parent, k));
    // the first request the fork's model answers is the parent's next one: the same memory, prompt and settings
    const firstLive = async (id: string, answeredBy: string) =>
      (
        await db.pool.query<{ request_key: string }>(
          `SELECT x.request_key FROM model_exchanges x JOIN actions a ON a.experiment_id = x.experiment_id
             AND a.turn_number = x.turn_number
           WHERE x.experiment_id = $1 AND x.answered_by = $2 AND a.step_number = $3 + 1
           ORDER BY x.turn_number, x.call_index LIMIT 1`,
          [id, answeredBy, k],
        )
      ).rows[0]?.request_key;
    expect(await firstLive('fork-a', 'model')).toBe(await firstLive(parent, 'model'));
    const link = await db.pool.query("SELECT forked_from, fork_step FROM experiments WHERE id = 'fork-a'");
    expect(link.rows).toEqual([{ forked_from: parent, fork_step: k }]);
  });

  it("inside a reply: the reply is cut after the step, and the steps up to it are the parent's", async () => {
    const k = (await turnEnd(50)) + 2;
    const r = await ariadne(['fork', parent, '--at-step', String(k), '--experiment-id', 'fork-b'], {
      ...env(),
      OPENAI_API_KEY: 'sk-test',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(await stepsUpTo('fork-b', k)).toEqual(await stepsUpTo(parent, k));
    const replayed = await db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM model_exchanges WHERE experiment_id = 'fork-b' AND answered_by = 'replay'",
    );
    expect(replayed.rows[0].n).toBeGreaterThan(0);
  });

  it('over the Data API, as on AWS: StartExperiment takes the fork, each turn reads its prefix', async () => {
    const k = await turnEnd(50);
    const api = await overDataApi(db, { url: db.url });
    try {
      const request = await rerunRequest(api, parent, 'fork-aws');
      const prompts = new ParameterCache(fileSource(parameters));
      const run = await runLocalExperiment(
        { ...request, fork: { parent, atStep: k } },
        { db: api, parameters: prompts },
      );
      expect(run.summary).toMatchObject({ experiment_id: 'fork-aws' });
    } finally {
      await api.sim.close();
    }
    expect(await stepsUpTo('fork-aws', k)).toEqual(await stepsUpTo(parent, k));
    const link = await db.pool.query("SELECT forked_from, fork_step FROM experiments WHERE id = 'fork-aws'");
    expect(link.rows).toEqual([{ forked_from: parent, fork_step: k }]);
  });

  it("refuses a fork on another maze than its parent's, before anything is written", async () => {
    const request = await rerunRequest(db, parent, 'fork-elsewhere');
    const elsewhere = { ...request, maze: { generator: 'perfect', size: 41, seed: 9 }, fork: { parent, atStep: 10 } };
    const prompts = new ParameterCache(fileSource(parameters));
    await expect(runLocalExperiment(elsewhere, { db, parameters: prompts })).rejects.toThrow(
      /a fork plays on its parent's maze, and this is not parent-200's/,
    );
    const written = await db.pool.query("SELECT id FROM experiments WHERE id = 'fork-elsewhere'");
    expect(written.rows).toEqual([]);
  });

  it('refuses a step the parent never took, naming the range', async () => {
    const r = await ariadne(['fork', parent, '--at-step', '5000'], env());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--at-step must be a step of parent-200: 1 to 200/);
    // refused by StartExperiment before anything is written, as a StartExecution input would be on AWS
    const written = await db.pool.query('SELECT id FROM experiments WHERE fork_step = 5000');
    expect(written.rows).toEqual([]);
  });
});

describe('ariadne sweep FILE --replay-from SWEEP: a whole sweep replayed with no model server', () => {
  const ollama = new OllamaSim({ models: ['qwen2.5:7b'] });
  const sweepFile = (name: string, host: string, extra = '') => {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(
      file,
      [
        `sweep: ${name}`,
        'agents: [{ agent: ollama, model: "qwen2.5:7b" }]',
        'mazes: { generators: [medium], sizes: [9, 11], seeds: [4] }',
        `config: { max_moves: 60, ollama: { host: "${host}" }${extra} }`,
        'repeats: 2',
        'max_concurrency: 2',
      ].join('\n'),
    );
    return file;
  };
  const trajectories = async (sweep: string) =>
    (
      await db.pool.query<{ cell: number; repeat: number; hash: string; status: string }>(
        `SELECT c.maze_size AS cell, e.sweep_repeat AS repeat, e.trajectory_hash AS hash, e.status
         FROM experiments e JOIN sweep_cells c ON c.sweep_id = e.sweep_id AND c.cell_index = e.sweep_cell
         WHERE e.sweep_id = $1 ORDER BY 1, 2`,
        [sweep],
      )
    ).rows;

  it('answers each run from its counterpart: the same trajectories, every call a replay', async () => {
    const host = await ollama.listen();
    const first = await ariadne(['sweep', sweepFile('recorded-sweep', host), '--json']);
    expect(first.code, first.stderr).toBe(0);
    await ollama.close();
    const again = await ariadne([
      'sweep',
      sweepFile('replayed-sweep', host, ', stuck_policy: observe'),
      '--replay-from',
      'recorded-sweep',
      '--json',
    ]);
    expect(again.code, again.stderr).toBe(0);
    const recorded = await trajectories('recorded-sweep');
    expect(recorded).toHaveLength(4);
    expect(await trajectories('replayed-sweep')).toEqual(recorded);
    const answered = await db.pool.query<{ answered_by: string }>(
      `SELECT DISTINCT x.answered_by FROM model_exchanges x JOIN experiments e ON e.id = x.experiment_id
       WHERE e.sweep_id = 'replayed-sweep'`,
    );
    expect(answered.rows).toEqual([{ answered_by: 'replay' }]);
  });

  it('stops each run whose requests differ (another success rule, another system prompt): named', async () => {
    const r = await ariadne([
      'sweep',
      sweepFile('rescored-sweep', 'http://127.0.0.1:9', ', success_rule: reached'),
      '--replay-from',
      'recorded-sweep',
      '--json',
    ]);
    expect(r.code).toBe(1);
    const failed = await db.pool.query<{ failure_reason: string }>(
      "SELECT failure_reason FROM experiments WHERE sweep_id = 'rescored-sweep'",
    );
    expect(failed.rows).toHaveLength(4);
    for (const f of failed.rows)
      expect(f.failure_reason).toMatch(/replay diverged at turn 1, call 0: the request's system/);
  });
});

describe('config.cache: an identical request answered from the record', () => {
  const cacheSim = new OpenAISim();
  let url = '';
  beforeAll(async () => {
    url = `${await cacheSim.listen()}/v1`;
  });
  afterAll(() => cacheSim.close());
  const chats = () => cacheSim.requests.filter((r) => r.path === '/v1/chat/completions').length;

  it('costs nothing, keeps what the call cost then, and asks the server for nothing but its models', async () => {
    const args = ['run', '--provider', 'openai', '--model', 'gpt-4.1-mini', '--openai-base-url', url, '--cache', 'all'];
    const maze = ['--maze', 'medium', '--size', '9', '--seed', '6', '--max-moves', '40', '--set', 'model_seed=none'];
    const key = { OPENAI_API_KEY: 'sk-test' };
    expect((await ariadne([...args, ...maze, '--experiment-id', 'cache-first'], key)).code).toBe(0);
    const asked = chats();
    expect(asked).toBeGreaterThan(0);
    const again = await ariadne([...args, ...maze, '--experiment-id', 'cache-second'], key);
    expect(again.code, again.stderr).toBe(0);
    expect(chats()).toBe(asked);
    const runs = await db.pool.query<{ id: string; spent_tokens: number; trajectory_hash: string; answered: string[] }>(
      `SELECT e.id, e.spent_tokens::int, e.trajectory_hash,
         (SELECT array_agg(DISTINCT answered_by) FROM model_exchanges x WHERE x.experiment_id = e.id) AS answered
       FROM experiments e WHERE e.id IN ('cache-first', 'cache-second') ORDER BY e.id`,
    );
    const [first, second] = runs.rows;
    expect(first.answered).toEqual(['model']);
    expect(second.answered).toEqual(['cache']);
    expect(first.spent_tokens).toBeGreaterThan(0);
    expect(second.spent_tokens).toBe(0);
    expect(second.trajectory_hash).toBe(first.trajectory_hash);
    const calls = async (id: string) =>
      (
        await db.pool.query('SELECT input_tokens, output_tokens FROM llm_calls WHERE experiment_id = $1 ORDER BY 1', [
          id,
        ])
      ).rows;
    expect(await calls('cache-second')).toEqual(await calls('cache-first'));
  });

  it('in a sweep: a repeat answered wholly from the cache is never an independent observation', async () => {
    const file = join(dir, 'cached-sweep.yaml');
    writeFileSync(
      file,
      [
        'sweep: cached-sweep',
        'agents: [{ agent: openai, model: gpt-4.1-mini }]',
        'mazes: { generators: [medium], sizes: [9], seeds: [7] }',
        `config: { max_moves: 40, cache: sweep, model_seed: none, openai: { base_url: "${url}" } }`,
        'repeats: 2',
        'max_concurrency: 1',
      ].join('\n'),
    );
    const r = await ariadne(['sweep', file, '--json'], { OPENAI_API_KEY: 'sk-test' });
    expect(r.code, r.stderr).toBe(0);
    // whichever repeat ran first asked the server; the other was answered from its record
    const rows = await db.pool.query<{ from_cache: boolean; independent: boolean }>(
      "SELECT from_cache, independent FROM sweep_runs WHERE sweep_id = 'cached-sweep' ORDER BY from_cache",
    );
    expect(rows.rows).toEqual([
      { from_cache: false, independent: true },
      { from_cache: true, independent: false },
    ]);
    const stats = await ariadne(['stats', 'cached-sweep', '--wide']);
    expect(stats.stdout.replace(/\s+/g, ' ')).toContain('1 run was answered wholly from the cache (config.cache)');
    // the viewer's grid cell says so too
    const { cells } = await sweepStatistics(db, 'cached-sweep', { cells: true, resamples: 10 });
    expect(cellText(cells![0]).counted).toContain('1 run answered from the cache');
  });
});

describe('a sweep of forks: forks: { from, at } in a sweep file', () => {
  const ollama = new OllamaSim({ models: ['qwen2.5:7b', 'llama3.2:3b'] });
  let host = '';
  beforeAll(async () => {
    host = await ollama.listen();
  });
  afterAll(() => ollama.close());
  const write = (name: string, lines: string[]) => {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, [`sweep: ${name}`, ...lines].join('\n'));
    return file;
  };

  it('continues each source run after each step listed, and compare pairs the agents by fork point', async () => {
    const mazes = 'mazes: { generators: [medium], sizes: [21, 25], seeds: [3] }';
    const config = `config: { max_moves: 60, ollama: { host: "${host}" } }`;
    const source = write('fork-source', [
      'agents: [{ agent: ollama, model: "qwen2.5:7b" }]',
      mazes,
      config,
      'repeats: 2',
    ]);
    expect((await ariadne(['sweep', source, '--json'])).code).toBe(0);
    const forks = write('fork-sweep', [
      'agents: [{ agent: ollama, model: "qwen2.5:7b" }, { agent: ollama, model: "llama3.2:3b" }]',
      mazes,
      config,
      'forks: { from: fork-source, at: [5, 10], repeats: 2 }',
    ]);
    const r = await ariadne(['sweep', forks, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ done: 16, failed: 0 });
    const runs = await db.pool.query<{ id: string; parent: string; k: number; at: number }>(
      `SELECT e.id, e.forked_from AS parent, e.fork_step AS k, (c.settings ->> 'fork_at')::int AS at
       FROM experiments e JOIN sweep_cells c ON c.sweep_id = e.sweep_id AND c.cell_index = e.sweep_cell
       WHERE e.sweep_id = 'fork-sweep'`,
    );
    expect(runs.rows).toHaveLength(16);
    for (const run of runs.rows) {
      expect(run.k).toBe(run.at);
      expect(await stepsOf(run.id, run.k)).toEqual(await stepsOf(run.parent, run.k));
    }
    const compared = await ariadne(['compare', 'fork-sweep', 'qwen2.5:7b', 'llama3.2:3b', '--json']);
    expect(compared.code, compared.stderr).toBe(0);
    const groups = (
      JSON.parse(compared.stdout) as { groups: Array<{ settings: unknown; pairs: number; mazes: number }> }
    ).groups;
    expect(groups.map((g) => [g.settings, g.pairs, g.mazes]).sort()).toEqual([
      [{ fork_at: 10 }, 4, 2],
      [{ fork_at: 5 }, 4, 2],
    ]);
    // a pair's two runs continue one parent: the same maze, repeat and fork point fork the same source run
    const parents = await db.pool.query<{ parents: number }>(
      `SELECT count(DISTINCT e.forked_from)::int AS parents
       FROM experiments e JOIN sweep_cells c ON c.sweep_id = e.sweep_id AND c.cell_index = e.sweep_cell
       WHERE e.sweep_id = 'fork-sweep' GROUP BY c.maze_size, e.sweep_repeat, c.settings ->> 'fork_at'`,
    );
    expect(parents.rows.map((p) => p.parents)).toEqual(Array(8).fill(1));
  });

  it('takes its repeats in forks or at the top, not both', async () => {
    const both = write('fork-both', [
      'agents: [{ agent: ollama, model: "qwen2.5:7b" }]',
      'mazes: { generators: [medium], sizes: [21], seeds: [3] }',
      'forks: { from: fork-source, at: [5], repeats: 3 }',
      'repeats: 2',
    ]);
    const r = await ariadne(['sweep', both]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/forks\.repeats \(line 4\): give repeats once: forks\.repeats 3 or repeats 2/);
  });
});

const stepsOf = async (id: string, step: number) =>
  (
    await db.pool.query(
      `SELECT step_number, tool, outcome, to_x, to_y FROM actions
       WHERE experiment_id = $1 AND step_number <= $2 ORDER BY step_number`,
      [id, step],
    )
  ).rows;

describe('over the Data API, within its row limits: a reply of 200 KB kept in parts', () => {
  // a model that writes 100,000 two-byte characters once: a body no Data API row could carry whole
  const words = 'ü'.repeat(100_000);
  const verbose = new OllamaSim({ models: ['qwen2.5:7b'], faults: [{ kind: 'say', text: words }] });
  let host = '';
  beforeAll(async () => {
    host = await verbose.listen();
  });
  afterAll(() => verbose.close());
  const request = (experimentId: string, config: Record<string, unknown> = {}): StartExecutionInput => ({
    experimentId,
    agent: 'ollama',
    model: 'qwen2.5:7b',
    maze: { generator: 'medium', size: 11, seed: 4 },
    config: { ollama: { host, num_ctx: 65_536 }, max_moves: 30, max_output_tokens: 40_000, ...config },
  });
  it('is recorded, replayed, forked and answered from the cache, every statement through the Data API', async () => {
    const api = await overDataApi(db, { url: db.url });
    try {
      await runLocalExperiment(request('verbose'), { db: api });
      const parts = await db.pool.query<{ part: number; chars: number }>(
        `SELECT b.part, char_length(b.body) AS chars
         FROM model_exchanges x JOIN model_bodies b ON b.sha256 = x.reply_sha256
         WHERE x.experiment_id = 'verbose' AND x.turn_number = 1 AND x.call_index = 0 ORDER BY b.part`,
      );
      expect(parts.rows.length).toBeGreaterThan(12);
      expect(Math.max(...parts.rows.map((p) => p.chars))).toBe(8192);

      // replayed over the Data API: the long reply read back whole, the same trajectory
      const script = await replayScript(api, 'verbose');
      const again = { ...(await rerunRequest(api, 'verbose', 'verbose-replay')), config: request('').config };
      const replayFrom = async (run: string) => script.from(await answeredRequests(api, run));
      await runLocalExperiment(again, { db: api, agents: agentsWith({ ...sharedAgentDeps(api), replayFrom }) });
      expect(await hashOf('verbose-replay')).toBe(await hashOf('verbose'));
      const texts = await db.pool.query<{ text: string }>(
        `SELECT assistant_text AS text FROM llm_calls WHERE experiment_id = 'verbose-replay' AND turn_number = 1
         AND call_index = 0`,
      );
      expect(texts.rows[0].text.startsWith('üüü')).toBe(true);

      // forked after step 10: the first reply (200 KB) is among the prefix read through the Data API
      await runLocalExperiment({ ...request('verbose-fork'), fork: { parent: 'verbose', atStep: 10 } }, { db: api });
      expect(await stepsOf('verbose-fork', 10)).toEqual(await stepsOf('verbose', 10));

      // answered from the cache: the long reply comes back from its parts
      await runLocalExperiment(request('verbose-cached', { cache: 'all' }), { db: api });
      expect(await hashOf('verbose-cached')).toBe(await hashOf('verbose'));
      // the largest row served came near the limit and not past it: the parts, not the whole body
      expect(api.sim.peaks.rowBytes).toBeGreaterThan(16_384);
      expect(api.sim.peaks.rowBytes).toBeLessThanOrEqual(fact('data-api.max-row-bytes').value);
    } finally {
      await api.sim.close();
    }
  });
});

describe('the stored forms a Data API row can carry', () => {
  it('cuts a body at 8,192 characters as Postgres counts them, never inside a surrogate pair', () => {
    const text = 'a'.repeat(8191) + '😀' + 'b'.repeat(9000);
    const parts = bodyParts(text);
    expect(parts.join('')).toBe(text);
    expect(parts.map((p) => [...p].length)).toEqual([8192, 8192, 808]);
    expect(parts[0].endsWith('😀')).toBe(true);
    expect(bodyParts('short')).toEqual(['short']);
  });

  it('keeps a manifest of 1,000 messages with its list as a body, read back as it was asked', async () => {
    const manifest = {
      provider: 'openai',
      model: 'm',
      version: null,
      parameters: sha256('p'),
      system: sha256('s'),
      tools: sha256('t'),
      messages: Array.from({ length: 1000 }, (_, i) => sha256(String(i))),
    };
    const bodies = new Map<string, string>();
    const stored = storedManifest(manifest, bodies);
    expect(stored.messages).toEqual({ body: expect.any(String) });
    for (const [h, body] of bodies)
      for (const [part, text] of bodyParts(body).entries())
        await db.pool.query('INSERT INTO model_bodies (sha256, part, body) VALUES ($1, $2, $3)', [h, part, text]);
    await db.pool.query('INSERT INTO model_requests (request_key, manifest) VALUES ($1, $2)', ['long-list', stored]);
    const api = await overDataApi(db, { url: db.url });
    try {
      expect((await readManifests(api, ['long-list'])).get('long-list')).toEqual(manifest);
    } finally {
      await api.sim.close();
    }
  });
});
