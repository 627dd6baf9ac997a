// LLM providers and workflows from the command line: ariadne commands
// against the simulated Ollama server and Bedrock endpoint checks.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import { OpenAISim } from '../simulators/openai-sim.ts';
import { tableCounts, testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';
import { cli, ROOT } from './support/cli.ts';
import { parametersFile } from './support/parameters-file.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});
const { ariadne, expectInputError } = cli(() => db);
const dir = tempDir('cli-providers');

describe('LLM providers from the command line', () => {
  let sim: OllamaSim;
  let simUrl = '';
  let closedPort = 0;
  beforeAll(async () => {
    sim = new OllamaSim();
    simUrl = await sim.listen();
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    closedPort = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
  });
  afterAll(async () => {
    await sim.close();
  });

  it.each([
    [
      ['run', '--provider', 'mistral', '--model', 'gpt-4o'],
      /--provider "mistral" is not one of: ollama, bedrock, openai/,
    ],
    [['run', '--provider', 'ollama'], /--provider ollama needs --model \(e\.g\. qwen2\.5:7b\)/],
    [['run', '--provider', 'bedrock'], /--provider bedrock needs --model/],
    [['run', '--model', 'qwen2.5:7b'], /--model goes with --provider/],
    [
      ['run', '--provider', 'ollama', '--model', 'qwen2.5:7b', '--prompt-version', 'v99'],
      /--prompt-version "v99" is not defined; choose one of: v1/,
    ],
  ])('ariadne %j exits 2 and writes nothing', expectInputError);

  it('an unreachable host exits 3, a missing model 2, each naming the option; nothing written', async () => {
    const before = await tableCounts(db);
    const down = await ariadne([
      'run',
      '--provider',
      'ollama',
      '--model',
      'qwen2.5:7b',
      '--ollama-host',
      `http://127.0.0.1:${closedPort}`,
    ]);
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(
      new RegExp(`cannot reach Ollama at --ollama-host http://127\\.0\\.0\\.1:${closedPort} \\(ECONNREFUSED\\)`),
    );
    const missing = await ariadne(['run', '--provider', 'ollama', '--model', 'mistral:7b', '--ollama-host', simUrl]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /--model "mistral:7b" is not on the Ollama server .* pull it with: ollama pull mistral:7b/,
    );
    const bedrock = await ariadne([
      'run',
      '--provider',
      'bedrock',
      '--model',
      'amazon.nova-lite-v1:0',
      '--bedrock-endpoint',
      `http://127.0.0.1:${closedPort}`,
    ]);
    expect(bedrock.code).toBe(3);
    expect(bedrock.stderr).toMatch(/cannot reach --bedrock-endpoint .*ECONNREFUSED/);
    expect(await tableCounts(db)).toEqual(before);
  });

  /** An Ollama run on a small maze against the simulator (its URL is known once beforeAll has run). */
  const ollamaRun = () => [
    ...['run', '--provider', 'ollama', '--model', 'qwen2.5:7b', '--ollama-host', simUrl],
    ...['--maze', 'medium', '--size', '15', '--seed', '3'],
  ];

  it('runs an Ollama experiment against the simulator', async () => {
    const r = await ariadne([...ollamaRun(), '--json']);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ agent: 'ollama', model: 'qwen2.5:7b', status: 'completed', goal_found: true });
    expect(summary.input_tokens).toBe(sim.replies.reduce((n, x) => n + x.inputTokens, 0));
  });

  it('the text summary of an LLM run shows provider, model, prompt, calls, tokens and cost', async () => {
    const args = [...ollamaRun(), '--quiet'];
    const usage = async (id: string) =>
      (
        await db.pool.query<{ calls: number; input: number; output: number; cost: number | null }>(
          `SELECT count(*)::int AS calls, sum(input_tokens)::int AS input, sum(output_tokens)::int AS output,
                  (SELECT sum(cost_usd)::float8 FROM turns WHERE experiment_id = $1) AS cost
           FROM llm_calls WHERE experiment_id = $1`,
          [id],
        )
      ).rows[0];
    const unpriced = await ariadne([...args, '--experiment-id', 'llm-unpriced']);
    expect(unpriced.code).toBe(0);
    const u = await usage('llm-unpriced');
    expect(u.calls).toBeGreaterThan(0);
    const n = (x: number) => x.toLocaleString('en-US');
    expect(unpriced.stdout).toMatch(/^provider +ollama$/m);
    expect(unpriced.stdout).toMatch(/^model +qwen2\.5:7b$/m);
    expect(unpriced.stdout).toMatch(/^prompt +v2$/m);
    expect(unpriced.stdout).toMatch(new RegExp(`^llm calls +${u.calls}$`, 'm'));
    expect(unpriced.stdout).toMatch(new RegExp(`^tokens +${n(u.input)} input, ${n(u.output)} output$`, 'm'));
    expect(unpriced.stdout).toMatch(/^cost +unknown \(no price for qwen2\.5:7b\)$/m);
    expect(unpriced.stdout).toMatch(/^next: .* replay llm-unpriced /m);

    const prices = '{"qwen2.5:7b": {"input_per_mtok": 10, "output_per_mtok": 30}}';
    const priced = await ariadne([...args, '--experiment-id', 'llm-priced'], {
      ARIADNE_PARAMETERS: parametersFile([`/ariadne/config/prices: '${prices}'`]),
    });
    expect(priced.code).toBe(0);
    const p = await usage('llm-priced');
    expect(p.cost).toBeCloseTo((p.input * 10 + p.output * 30) / 1e6, 5);
    const cost = /^cost +\$(\d+\.\d{4})$/m.exec(priced.stdout);
    expect(cost).not.toBeNull();
    expect(Number(cost![1])).toBeCloseTo(p.cost!, 4);
  });

  it(
    '--workflow runs a workflow file as the prompt; ariadne workflow checks one and names the YAML ' +
      'path of a problem',
    async () => {
      const sample = join(ROOT, 'examples', 'workflows', 'observe-plan-act.yaml');
      expect((await ariadne(['workflow', sample])).stdout).toMatch(
        /workflow "observe_plan_act" is valid: 3 states \(observe, plan, act\)/,
      );
      const bad = join(dir, 'bad-workflow.yaml');
      writeFileSync(bad, readFileSync(sample, 'utf8').replace('plans + 1', 'plans + 1 +'));
      const checked = await ariadne(['workflow', bad]);
      expect(checked.code).toBe(2);
      expect(checked.stderr).toMatch(/workflow: workflow .*bad-workflow\.yaml: steps\[1\]\.set\.plans \(line \d+\): /);
      await expectInputError(
        ['run', '--provider', 'ollama', '--model', 'qwen2.5:7b', '--ollama-host', simUrl, '--workflow', bad],
        /--workflow: workflow .*steps\[1\]\.set\.plans/,
      );
      await expectInputError(
        ['run', '--workflow', sample],
        /--workflow goes with --provider ollama, --provider bedrock, --provider openai/,
      );
      const r = await ariadne([
        'run',
        '--provider',
        'ollama',
        '--model',
        'qwen2.5:7b',
        '--ollama-host',
        simUrl,
        '--maze',
        'medium',
        '--size',
        '15',
        '--seed',
        '3',
        '--workflow',
        sample,
        '--json',
      ]);
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout);
      expect(summary).toMatchObject({
        status: 'completed',
        prompt_version: 'observe_plan_act/v0',
        workflow: 'observe_plan_act',
      });
      expect((await ariadne(['summary', summary.experiment_id])).stdout).toMatch(
        /^workflow +observe_plan_act \(prompt version observe_plan_act\/v0\)$/m,
      );
      const { rows } = await db.pool.query(
        `SELECT count(*)::int AS n FROM agent_state_transitions WHERE experiment_id = $1 AND machine = ` +
          `'workflow' AND from_phase = 'observe' AND to_phase = 'plan'`,
        [summary.experiment_id],
      );
      expect(rows[0].n).toBeGreaterThan(0);
    },
  );

  it('ariadne sim serves the wire protocol until interrupted', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'bin/ariadne.ts', 'sim', 'ollama', '--port', '0', '--faults', '429'],
      { cwd: ROOT },
    );
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        const m = /simulated ollama at (\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    expect(await (await fetch(`${url}/api/version`)).json()).toHaveProperty('version');
    const tags = (await (await fetch(`${url}/api/tags`)).json()) as { models: Array<{ name: string }> };
    expect(tags.models.map((m: { name: string }) => m.name)).toContain('qwen2.5:7b');
    const throttled = await fetch(`${url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'qwen2.5:7b', messages: [], stream: false }),
    });
    expect(throttled.status).toBe(429);
    const code = await new Promise<number | null>((resolve) => {
      child.on('exit', resolve);
      child.kill('SIGINT');
    });
    expect(code).toBe(0);
  });

  it('--observation image for an Ollama model without "vision" in /api/show exits 2; a seeing one passes', async () => {
    const blind = new OllamaSim({ models: ['qwen2.5:7b', 'qwen2.5vl:7b'], textOnly: ['qwen2.5:7b'] });
    const host = await blind.listen();
    try {
      const before = await tableCounts(db);
      const run = (model: string) =>
        ariadne([
          'run',
          '--provider',
          'ollama',
          '--model',
          model,
          '--ollama-host',
          host,
          '--observation',
          'image',
          '--maze',
          'sparse',
          '--size',
          '7',
          '--max-turns',
          '2',
          '--max-moves',
          '16',
        ]);
      const refused = await run('qwen2.5:7b');
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain(
        `config.observation "image": --model "qwen2.5:7b" on the Ollama server at ${host} has no "vision" capability`,
      );
      expect(refused.stderr).toMatch(/use a vision model .* or a text observation format/);
      expect(await tableCounts(db)).toEqual(before);
      const seeing = await run('qwen2.5vl:7b');
      expect(seeing.stderr).not.toContain('vision');
      expect([0, 1], seeing.stderr).toContain(seeing.code);
    } finally {
      await blind.close();
    }
  });

  it('ariadne sim on a busy port exits 3 naming --port and the port, without a stack trace', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as { port: number }).port;
    try {
      const r = await ariadne(['sim', 'ollama', '--port', String(port)]);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toContain(`--port ${port} is in use (EADDRINUSE)`);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await new Promise((r) => busy.close(r));
    }
  });

  describe('the OpenAI-compatible provider', () => {
    let openai: OpenAISim;
    let base = '';
    beforeAll(async () => {
      openai = new OpenAISim({ apiKey: 'sk-cli' });
      base = `${await openai.listen()}/v1`;
    });
    afterAll(async () => {
      await openai.close();
    });
    const env = { OPENAI_API_KEY: 'sk-cli' };

    it('checks GET /v1/models first: an unknown model exits 2 naming what is served, a refused key 3', async () => {
      const before = await tableCounts(db);
      const missing = await ariadne(
        ['run', '--provider', 'openai', '--model', 'gpt-9', '--openai-base-url', base],
        env,
      );
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(
        new RegExp(
          '--model "gpt-9" is not among the models the server at \\S+ serves ' +
            '\\(gpt-4\\.1-mini, o4-mini, Qwen/Qwen2\\.5-7B-Instruct\\)',
        ),
      );
      const refused = await ariadne(
        ['run', '--provider', 'openai', '--model', 'gpt-4.1-mini', '--openai-base-url', base],
        { OPENAI_API_KEY: 'sk-wrong' },
      );
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/refused the key \(401: .*\); set \$OPENAI_API_KEY/);
      const down = await ariadne([
        'run',
        '--provider',
        'openai',
        '--model',
        'gpt-4.1-mini',
        '--openai-base-url',
        `http://127.0.0.1:${closedPort}/v1`,
      ]);
      expect(down.code).toBe(3);
      expect(down.stderr).toMatch(/cannot reach the OpenAI-compatible server at --openai-base-url .*ECONNREFUSED/);
      expect(await tableCounts(db)).toEqual(before);
    });

    it('runs an experiment against the simulator, streamed, with the tokens it reported', async () => {
      const r = await ariadne(
        [
          ...['run', '--provider', 'openai', '--model', 'Qwen/Qwen2.5-7B-Instruct', '--openai-base-url', base],
          ...['--stream', '--maze', 'medium', '--size', '15', '--seed', '3', '--json'],
        ],
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      const summary = JSON.parse(r.stdout);
      expect(summary).toMatchObject({ agent: 'openai', model: 'Qwen/Qwen2.5-7B-Instruct', status: 'completed' });
      const chats = openai.replies.filter((x) => x.model === 'Qwen/Qwen2.5-7B-Instruct');
      expect(summary.input_tokens).toBe(chats.reduce((n, x) => n + x.inputTokens, 0));
      expect(summary.output_tokens).toBe(chats.reduce((n, x) => n + x.outputTokens, 0));
      const streamed = openai.requests.filter((x) => x.path === '/v1/chat/completions');
      expect(streamed.every((x) => x.body.stream === true)).toBe(true);
    });

    it('refuses --openai-base-url for another provider, naming both flags', async () => {
      await expectInputError(
        ['run', '--provider', 'ollama', '--model', 'qwen2.5:7b', '--openai-base-url', 'http://127.0.0.1:1/v1'],
        /--openai-base-url is for --provider openai; this run is ollama/,
      );
    });
  });
});
