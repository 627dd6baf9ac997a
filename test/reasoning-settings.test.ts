// Reasoning as a setting: each provider's own knob (OpenAI reasoning_effort, Ollama think, Bedrock
// reasoning_budget_tokens) swept by its dotted key like any setting, each value its own group in the statistics, the
// reasoning stored (text where the server returns it; tokens as reported or estimated) and priced as output.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { loadSweep, SweepDefinitionError } from '../core/sweeps/sweep-spec.ts';
import { factorStats } from '../reports/factor-stats.ts';
import { varyingFactors } from '../reports/factors.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { openaiSim, providerSims } from './support/provider-sims.ts';

const sims = providerSims();
const served = openaiSim();
let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});

const RETRY = '{ max_attempts: 4, base_delay_ms: 1, max_delay_ms: 5, timeout_ms: 5000 }';

/** Per run of a sweep: its setting's value, and what its calls recorded of reasoning and output. */
async function reasoningByRun(sweepId: string, setting: string) {
  const { rows } = await db.pool.query<{
    agent: string;
    value: string;
    reported: number | null;
    estimated: number | null;
    texts: number;
    output: number;
    cost: number | null;
  }>(
    `SELECT e.agent, e.config #>> $2::text[] AS value,
            sum(l.reported_reasoning_tokens)::int AS reported, sum(l.reasoning_tokens)::int AS estimated,
            count(l.reasoning_text)::int AS texts, sum(l.output_tokens)::int AS output,
            (SELECT sum(cost_usd)::float8 FROM turns t WHERE t.experiment_id = e.id) AS cost
     FROM experiments e JOIN llm_calls l ON l.experiment_id = e.id
     WHERE e.sweep_id = $1 GROUP BY e.id, e.agent ORDER BY e.id`,
    [sweepId, setting.split('.')],
  );
  return rows;
}

describe('reasoning swept by its dotted key', () => {
  it('openai.reasoning_effort: each effort its own group; reported tokens priced as output', async () => {
    const sweep = loadSweep(
      `sweep: effort
agents:
  - { agent: openai, model: o4-mini, config: { openai: { base_url: "${served.url}" } } }
mazes: { generators: [medium], sizes: [15], seeds: [3, 4] }
settings: { openai.reasoning_effort: [low, high] }
config:
  max_moves: 500
  retry: ${RETRY}
  prices: { o4-mini: { input_per_mtok: 1.1, output_per_mtok: 4.4 } }
`,
      'test',
    );
    // the section's other keys (the agent's base_url) stay: the dotted key sets one key of the section
    expect(sweep.cells.map((c) => c.config.openai)).toEqual([
      { base_url: served.url, reasoning_effort: 'low' },
      { base_url: served.url, reasoning_effort: 'high' },
      { base_url: served.url, reasoning_effort: 'low' },
      { base_url: served.url, reasoning_effort: 'high' },
    ]);
    await runLocalSweep(sweep, { db, concurrency: 1 });
    const factors = await varyingFactors(db.pool, 'effort');
    expect(factors).toContain('openai.reasoning_effort');
    const groups = await factorStats(db.pool, 'effort', ['openai.reasoning_effort']);
    expect(groups.map((g) => [g['openai.reasoning_effort'], g.n, g.successes])).toEqual([
      ['high', 2, 2],
      ['low', 2, 2],
    ]);
    const runs = await reasoningByRun('effort', 'openai.reasoning_effort');
    for (const r of runs) {
      // reported exactly, text kept (the simulator answers as vLLM does), part of the output that is priced
      expect(r.reported).toBeGreaterThan(0);
      expect(r.texts).toBeGreaterThan(0);
      expect(r.output).toBeGreaterThan(r.reported!);
      expect(r.cost).toBeGreaterThan((r.output * 4.4) / 1e6 - 1e-5);
    }
    const mean = (v: string) => {
      const of = runs.filter((r) => r.value === v);
      return of.reduce((n, r) => n + r.reported! / r.output, 0) / of.length;
    };
    // the setting moves what is measured: a larger share of the output is reasoning at high effort
    expect(mean('high')).toBeGreaterThan(mean('low'));
  });

  it('ollama.think and bedrock.reasoning_budget_tokens: stored with estimated tokens, split by value', async () => {
    const sweep = loadSweep(
      `sweep: thinking
agents:
  - { agent: ollama, model: "qwen2.5:7b", config: { ollama: { host: "${sims.ollamaUrl}" } } }
  - agent: bedrock
    model: us.anthropic.claude-sonnet-4-6
    config: { bedrock: { endpoint: "${sims.bedrockUrl}", region: us-west-2, prompt_caching: false } }
mazes: { generators: [medium], sizes: [15], seeds: [3] }
settings: { ollama.think: [false, true], bedrock.reasoning_budget_tokens: [1024, 2048] }
config: { max_moves: 500, max_output_tokens: 4096, retry: ${RETRY} }
`,
      'test',
    );
    process.env.AWS_ACCESS_KEY_ID = 'sim';
    process.env.AWS_SECRET_ACCESS_KEY = 'sim';
    await runLocalSweep(sweep, { db, concurrency: 1 });
    const ollamaGroups = await factorStats(db.pool, 'thinking', ['label', 'ollama.think']);
    const byLabel = (label: string) => ollamaGroups.filter((g) => g.label === label);
    // think reaches Ollama's runs only: split there, not applicable to Bedrock's
    // (a setting's value as the snapshot's text, as every factor is read)
    expect(byLabel('qwen2.5:7b').map((g) => [g['ollama.think'], g.n])).toEqual([
      ['false', 2],
      ['true', 2],
    ]);
    expect(byLabel('us.anthropic.claude-sonnet-4-6').map((g) => [g['ollama.think'], g.n])).toEqual([['n/a', 4]]);
    const budgets = await factorStats(db.pool, 'thinking', ['label', 'bedrock.reasoning_budget_tokens']);
    expect(
      budgets
        .filter((g) => g.label === 'us.anthropic.claude-sonnet-4-6')
        .map((g) => [g['bedrock.reasoning_budget_tokens'], g.n]),
    ).toEqual([
      ['1024', 2],
      ['2048', 2],
    ]);
    const runs = await reasoningByRun('thinking', 'ollama.think');
    // thinking asked: text and estimated tokens; not asked: none. Neither provider reports them apart.
    for (const r of runs) {
      expect(r.reported).toBeNull();
      if (r.texts > 0) expect(r.estimated).toBeGreaterThan(0);
    }
    const ollamaRuns = runs.filter((r) => r.agent === 'ollama');
    expect(ollamaRuns.map((r) => [r.value, r.texts > 0]).sort()).toEqual([
      ['false', false],
      ['false', false],
      ['true', true],
      ['true', true],
    ]);
    // Bedrock was given a budget in every cell: every run's calls returned reasoning
    expect(runs.filter((r) => r.agent === 'bedrock').map((r) => r.texts > 0)).toEqual([true, true, true, true]);
  });

  it('a dotted key outside the config is refused, naming the setting', () => {
    const load = () =>
      loadSweep(
        `sweep: typo
agents: [{ agent: random }]
mazes: { generators: [medium], sizes: [11], seeds: [1] }
settings: { openai.reasoning_efort: [low] }
`,
        'test',
      );
    expect(load).toThrow(SweepDefinitionError);
    expect(load).toThrow(/settings\.openai\.reasoning_efort/);
  });
});
