// Token accounting and cost from what the provider reports, over the Ollama and Bedrock
// simulators and both database transports: the estimate calibrated on the first reported prompt count and carried
// to later turns (fresh agents), calls off by more than 10% flagged, and an unknown price told apart from zero cost.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { STATES } from '../core/machine/states.ts';
import { showSummary } from '../bin/cli/summary.ts';
import { MODEL_TABLE } from '../core/config/model-table.ts';
import { fact } from '../aws-facts/facts.ts';
import { DEFAULT_CONFIG } from '../core/config/experiment-config.ts';
import { TokenCalibration, estimateIsOff } from '../core/providers/llm/calibration.ts';
import { priceOf, tokenCostUsd } from '../core/engine/token-cost.ts';
import { testDatabase, TRANSPORTS, type TestDatabase } from './support/db.ts';
import { FAST_RETRY, providerSims } from './support/provider-sims.ts';

const sims = providerSims();
const { ollama, bedrock } = sims;
const NO_WAIT = { [STATES.InvokeOllamaAgent]: 0, [STATES.InvokeBedrockAgent]: 0 };
const MAZE = { generator: 'medium', size: 15, seed: 3 };
const SONNET_46 = 'anthropic.claude-sonnet-4-6';
const SONNET = `us.${SONNET_46}`; // on demand through an inference profile only
const SONNET_45 = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

afterEach(() => {
  ollama.tokenScale = 1;
  bedrock.tokenScale = 1;
});

describe('calibration rules', () => {
  it('learns reported/estimated once, ignores a count at the window, and flags a miss over 10%', () => {
    const c = new TokenCalibration(null);
    expect(c.scale(100)).toBe(100);
    c.observe(100, 4096, 4096); // Ollama cut the prompt at num_ctx: not a measurement
    expect(c.ratio).toBeNull();
    c.observe(100, 180, 4096);
    expect(c.ratio).toBe(1.8);
    c.observe(100, 300, 4096); // the first count stays
    expect(c.scale(200)).toBe(360);
    // off by more than 10% of the reported count: 12 of 112 is, 10 of 110 is not, 10 of 90 is
    expect([
      estimateIsOff(100, 112),
      estimateIsOff(100, 110),
      estimateIsOff(100, 90),
      estimateIsOff(100, null),
    ]).toEqual([true, false, true, null]);
  });

  it('every model in the table carries its read date and source page; defaults come from it', () => {
    for (const [id, e] of Object.entries(MODEL_TABLE)) {
      expect(e.read, id).toMatch(/^2026-\d\d-\d\d$/);
      expect(e.source, id).toMatch(/^https:\/\//);
      expect(DEFAULT_CONFIG.prices[id]?.input_per_mtok, id).toBe(e.input_per_mtok);
      if (e.context_window !== null) expect(DEFAULT_CONFIG.context_windows[id], id).toBe(e.context_window);
    }
    expect(MODEL_TABLE['anthropic.claude-sonnet-4-5-20250929-v1:0'].status).toBe('legacy');
    // a Legacy row names a successor the table prices; a row past its end of life says since when, where known
    for (const [id, e] of Object.entries(MODEL_TABLE))
      if (e.replacement) expect(MODEL_TABLE[e.replacement]?.status, `${id} -> ${e.replacement}`).toBe('active');
    expect(MODEL_TABLE['anthropic.claude-3-7-sonnet-20250219-v1:0']).toMatchObject({
      status: 'end-of-life',
      eol: '2026-04-28',
    });
  });

  it("a model priced by the prompt's length: a request over the threshold is billed wholly at the long tier", () => {
    const haiku = priceOf(DEFAULT_CONFIG.prices, 'us.anthropic.claude-haiku-5-5')!;
    const request = (input: number, cacheRead: number) =>
      tokenCostUsd(haiku, {
        inputTokens: input,
        outputTokens: 1_000,
        cacheReadInputTokens: cacheRead,
        cacheWriteInputTokens: 0,
      });
    // 100,000 prompt tokens: the short tier ($0.10 input, $0.01 cache read, $0.50 output per Mtok)
    expect(request(40_000, 60_000)).toBeCloseTo((40_000 * 0.1 + 60_000 * 0.01 + 1_000 * 0.5) / 1e6, 12);
    // one more, counted with the cache read: every token of the request at the long tier ($0.50, $0.05, $2.50)
    expect(request(40_001, 60_000)).toBeCloseTo((40_001 * 0.5 + 60_000 * 0.05 + 1_000 * 2.5) / 1e6, 12);
    // a geographic profile of a model with a global one costs 1 / (1 - saving) of it (Sonnet 5.5 has one)
    const sonnet = priceOf(DEFAULT_CONFIG.prices, 'us.anthropic.claude-sonnet-5-5')!;
    expect(sonnet.input_per_mtok).toBeCloseTo(2 / (1 - fact('bedrock.global-profile-saving').value), 12);
  });
});

describe.each(TRANSPORTS)('over %s', (transport) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase({ transport });
  });
  afterAll(async () => {
    await db.drop();
  });
  const calls = async (id: string | null) =>
    (await db.pool.query('SELECT * FROM llm_calls WHERE experiment_id = $1 ORDER BY turn_number, call_index', [id]))
      .rows;
  const experiment = async (id: string | null) =>
    (await db.pool.query('SELECT * FROM experiments WHERE id = $1', [id])).rows[0];

  it('a model that counts twice the estimate: the first call is flagged, later turns start calibrated', async () => {
    ollama.tokenScale = 2;
    const { experimentId } = await runLocalExperiment(
      {
        agent: 'ollama',
        model: 'qwen2.5:7b',
        maze: MAZE,
        config: { ollama: { host: sims.ollamaUrl }, retry: FAST_RETRY },
      },
      { db, retryIntervals: NO_WAIT },
    );
    const rows = await calls(experimentId);
    const ratio = (await experiment(experimentId)).token_calibration as number;
    // the first call: reported / estimated, from what was sent and what came back
    expect(ratio).toBeCloseTo(rows[0].input_tokens / rows[0].prompt_estimate, 6);
    expect(ratio).toBeGreaterThan(1.8);
    expect(rows[0]).toMatchObject({ estimate_off: true, estimated_input_tokens: rows[0].prompt_estimate });
    const later = rows.filter((r) => r.turn_number > 1);
    expect(later.length).toBeGreaterThan(0);
    // each turn is a fresh agent: its estimates are scaled by the stored ratio
    for (const r of later) expect(r.estimated_input_tokens).toBe(Math.ceil(r.prompt_estimate * ratio));
    // and scaled, they meet the reported count within 10% where chars/4 alone missed by half
    expect(later.filter((r) => r.estimate_off).length).toBeLessThan(later.length / 4);
    expect(later.every((r) => Math.abs(r.input_tokens - r.prompt_estimate) > 0.1 * r.input_tokens)).toBe(true);
    const view = (
      await db.pool.query('SELECT estimate_off_calls FROM experiment_model_calls WHERE experiment_id = $1', [
        experimentId,
      ])
    ).rows[0];
    expect(view.estimate_off_calls).toBe(rows.filter((r) => r.estimate_off).length);
  });

  const runBedrock = (model: string, config: Record<string, unknown>) =>
    runLocalExperiment(
      {
        agent: 'bedrock',
        model,
        maze: MAZE,
        config: {
          bedrock: { endpoint: sims.bedrockUrl, region: 'us-west-2', prompt_caching: false },
          retry: FAST_RETRY,
          ...config,
        },
      },
      { db, retryIntervals: NO_WAIT },
    );

  async function summaryText(result: Awaited<ReturnType<typeof runLocalExperiment>>): Promise<string> {
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    try {
      await showSummary(db, result.summary!, false);
    } finally {
      spy.mockRestore();
    }
    return out.join('');
  }

  it('an unknown price is "unknown" (cost null, price_known false); zero price, $0 (price_known true)', async () => {
    const unpriced = await runBedrock(SONNET, { prices: {} });
    expect(await experiment(unpriced.experimentId)).toMatchObject({ price_known: false });
    expect(unpriced.summary?.cost_usd).toBeNull();
    expect(await summaryText(unpriced)).toMatch(/^cost +unknown \(no price for us\.anthropic\.claude-sonnet-4-6/m);

    const free = await runBedrock(SONNET, { prices: { [SONNET]: { input_per_mtok: 0, output_per_mtok: 0 } } });
    expect(await experiment(free.experimentId)).toMatchObject({ price_known: true });
    expect(free.summary?.cost_usd).toBe(0);
    expect(await summaryText(free)).toMatch(/^cost +\$0\.000000$/m);
  });

  it('an inference profile is priced as its model from the table', async () => {
    const r = await runBedrock(SONNET, {});
    expect(await experiment(r.experimentId)).toMatchObject({ price_known: true });
    const t = (
      await db.pool.query(
        'SELECT sum(input_tokens)::int AS i, sum(output_tokens)::int AS o, sum(cost_usd)::float8 AS c FROM turns ' +
          'WHERE experiment_id = $1',
        [r.experimentId],
      )
    ).rows[0];
    const e = MODEL_TABLE[SONNET_46];
    expect(t.c).toBeCloseTo((t.i * e.input_per_mtok + t.o * e.output_per_mtok) / 1e6, 9);
    expect(await summaryText(r)).toMatch(/^source +profile us\.anthropic\.claude-sonnet-4-6.*, us-west-2$/m);
  });

  it("geographic and global profiles of a model with a global one: each at its own rate (AWS's saving)", async () => {
    const turns = async (id: string | null) =>
      (
        await db.pool.query(
          'SELECT sum(input_tokens)::int AS i, sum(output_tokens)::int AS o, sum(cost_usd)::float8 AS c FROM turns ' +
            'WHERE experiment_id = $1',
          [id],
        )
      ).rows[0];
    const e = MODEL_TABLE[SONNET_45];
    const list = (t: { i: number; o: number }) => (t.i * e.input_per_mtok + t.o * e.output_per_mtok) / 1e6;
    const saving = fact('bedrock.global-profile-saving').value;
    const [global, geographic] = await Promise.all(
      [`global.${SONNET_45}`, `eu.${SONNET_45}`].map(async (profile) => {
        if (!bedrock.models.includes(profile)) bedrock.models.push(profile);
        return turns((await runBedrock(profile, {})).experimentId);
      }),
    );
    // global at the table's (list) price; geographic at the price global saves `saving` of (turns keep micro-dollars)
    expect(global.c).toBeCloseTo(list(global), 4);
    expect(geographic.c).toBeCloseTo(list(geographic) / (1 - saving), 4);
    expect(Math.abs(geographic.c - list(geographic))).toBeGreaterThan(0.05 * list(geographic));
    // a price set for the profile itself is its own
    const own = { [`us.${SONNET_45}`]: { input_per_mtok: 1, output_per_mtok: 1 } };
    if (!bedrock.models.includes(`us.${SONNET_45}`)) bedrock.models.push(`us.${SONNET_45}`);
    const set = await turns((await runBedrock(`us.${SONNET_45}`, { prices: own })).experimentId);
    expect(set.c).toBeCloseTo((set.i + set.o) / 1e6, 4);
  });
});
