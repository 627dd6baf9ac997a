// Providers' rate limits shared by every experiment running at once: a 32-run sweep against a simulated model
// whose service enforces a limit (scaled to a 3 s window) meets no throttle and runs close to the limit when
// config.rate_limits gives the same limit, and is throttled without it. Also the bucket statement itself, on
// both transports, and the config's checks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { STATES } from '../core/machine/states.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import { BedrockSim } from '../simulators/bedrock-sim.ts';
import { bedrockModel, classifyBedrockError } from '../core/providers/llm/bedrock-model.ts';
import { classifyOllamaError, ollamaModel } from '../core/providers/llm/ollama-model.ts';
import { DEFAULT_CONFIG, experimentConfigSchema } from '../core/config/experiment-config.ts';
import type { LimitedRequest, SimRateLimit } from '../simulators/sim-server.ts';
import { resolveParameters } from '../core/config/parameters.ts';
import { sqlRateLimits } from '../core/store/rate-limit-sql.ts';
import { bucketSpec, rateLimitedModel, RateLimitWaitError } from '../core/providers/llm/rate-limiter.ts';
import type { ChatModel } from '../core/providers/llm/chat-model.ts';
import { testDatabase, TRANSPORTS, type TestDatabase } from './support/db.ts';

const MODEL = 'qwen2.5:7b';
/**
 * 90 requests per 3 s: 30 a second, well below what 32 concurrent simulated runs ask for (hundreds a second); a window
 * long enough that a busy machine's timer delays (the 5% margin of rate-limiter.ts is 150 ms of it) do not bunch
 * requests over it. Each sweep's ~200 requests take about 7 s at that pace (15 a second took 13-15 s each).
 */
const LIMIT = { requests_per_minute: 90, tokens_per_minute: 600_000, window_seconds: 3 } satisfies SimRateLimit;
const WINDOW_MS = LIMIT.window_seconds * 1000;

function sweepYaml(name: string, host: string, limited: boolean): string {
  const seeds = Array.from({ length: 32 }, (_, i) => i + 1).join(', ');
  const limits = limited ? `\n  rate_limits: { "ollama:${MODEL}": ${JSON.stringify(LIMIT)} }` : '';
  return `sweep: ${name}
agents:
  - { agent: ollama, model: "${MODEL}" }
mazes:
  generators: [medium]
  sizes: [11]
  seeds: [${seeds}]
config:
  max_moves: 12
  max_actions_per_turn: 4
  ollama: { host: "${host}", stream: false }
  retry: { base_delay_ms: 20, max_delay_ms: 100, max_attempts: 20 }${limits}
repeats: 1
max_concurrency: 32
`;
}

/** The most requests the service let through in any window of its length. */
function busiestWindow(admitted: LimitedRequest[]): number {
  const at = admitted.map((r) => r.at).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < at.length; i++) {
    while (at[i] - at[j] >= WINDOW_MS) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

let db: TestDatabase;
/** A model of its own for the test whose bucket must start full. */
const OTHER_MODEL = 'llama3.2:3b';
const sim = new OllamaSim({ models: [MODEL, OTHER_MODEL], limits: { [MODEL]: LIMIT }, callsPerReply: 2 });
let host: string;
beforeAll(async () => {
  db = await testDatabase(10);
  host = await sim.listen();
});
afterAll(async () => {
  await sim.close();
  await db.drop();
});

async function sweep(name: string, limited: boolean) {
  sim.admitted.length = 0;
  sim.throttled.length = 0;
  // a turn that gave up on the throttles is retried by the state machine at once, not after seconds, and waits out
  // the "outage" of a service that keeps throttling it (provider-outage.ts) for 10 ms, not 15 s and more
  const retryIntervals = { [STATES.InvokeOllamaAgent]: 0 };
  const waitIntervals = { [STATES.OutageWait]: 10 };
  const spec = loadSweep(sweepYaml(name, host, limited), 'test');
  // 32 runs in flight listen on the sweep's one signal: no leak warning for that
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.name);
  process.on('warning', onWarning);
  try {
    const result = await runLocalSweep(spec, { db, concurrency: 32, retryIntervals, waitIntervals });
    await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    return { result, admitted: [...sim.admitted], throttled: [...sim.throttled] };
  } finally {
    process.off('warning', onWarning);
  }
}

describe('a 32-run sweep behind a shared rate limit', () => {
  it('meets no throttle and runs at 60-100% of the limit', async () => {
    const { result, admitted, throttled } = await sweep('rate-limited', true);
    expect(result.done).toBe(32);
    expect(result.failed).toBe(0);
    expect(throttled).toEqual([]);
    expect(busiestWindow(admitted)).toBeLessThanOrEqual(LIMIT.requests_per_minute);
    const spanMs = admitted.at(-1)!.at - admitted[0].at;
    const perWindow = (admitted.length / spanMs) * WINDOW_MS;
    const share = perWindow / LIMIT.requests_per_minute;
    console.log(
      `rate-limited sweep: ${admitted.length} requests in ${(spanMs / 1000).toFixed(1)} s = ` +
        `${perWindow.toFixed(1)} per ${LIMIT.window_seconds} s window (${(share * 100).toFixed(0)}% of the limit ` +
        `${LIMIT.requests_per_minute}); busiest window ${busiestWindow(admitted)}`,
    );
    expect(share).toBeGreaterThanOrEqual(0.6);
    expect(share).toBeLessThanOrEqual(1);
  }, 90_000);

  it('is throttled by the service when the limit is not configured', async () => {
    const { result, throttled, admitted } = await sweep('rate-unlimited', false);
    expect(result.done).toBe(32);
    console.log(`unlimited sweep: ${admitted.length} requests admitted, ${throttled.length} throttled`);
    expect(throttled.length).toBeGreaterThan(0);
  }, 90_000);
});

describe('a limit that a call cannot wait for', () => {
  it('fails the turn as ProviderTransientError, so the Task retries it, and then the experiment', async () => {
    // one request per hour: the burst lets the first call through, the next would wait far past its 100 ms
    const limit = { requests_per_minute: 1, window_seconds: 3600 };
    const retry = { max_attempts: 2, base_delay_ms: 1, max_delay_ms: 1, max_total_ms: 1000, timeout_ms: 200 };
    sim.admitted.length = 0;
    const run = runLocalExperiment(
      {
        agent: 'ollama',
        model: OTHER_MODEL,
        maze: { generator: 'medium', size: 15, seed: 3 },
        // no outage wait (provider-outage.test.ts has them): the Task's retries, then the experiment fails
        config: {
          ollama: { host },
          retry,
          rate_limits: { [`ollama:${OTHER_MODEL}`]: limit },
          provider_outage_wait_minutes: 0,
        },
      },
      { db, retryIntervals: { [STATES.InvokeOllamaAgent]: 0 } },
    );
    await expect(run).rejects.toThrow(
      /"llama3.2:3b": rate-limit bucket ollama:llama3\.2:3b .*gave up after 2 attempts/,
    );
    expect(sim.admitted).toHaveLength(1);
    const { rows } = await db.pool.query(
      `SELECT failure_reason FROM experiments WHERE model = $1 AND sweep_id IS NULL AND status = 'failed'`,
      [OTHER_MODEL],
    );
    expect(rows[0].failure_reason).toMatch(/^ProviderTransientError: .*rate-limit bucket ollama:llama3\.2:3b/);
  });
});

describe.each(TRANSPORTS)('the shared bucket over %s', (transport) => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await testDatabase({ transport, poolSize: 4 });
  });
  afterAll(async () => {
    await tdb.drop();
  });

  it('lets concurrent callers reserve exactly what refills within their wait, one after another', async () => {
    const store = sqlRateLimits(tdb);
    // 60 requests per minute: a burst of 6, then one every 1/0.85 s
    const spec = bucketSpec(`ollama:${transport}`, { requests_per_minute: 60, window_seconds: 60 });
    const levels = await Promise.all(Array.from({ length: 12 }, () => store.reserve(spec, 1, 0, 3000)));
    const granted = levels.filter((l) => l.granted).map((l) => l.requests);
    // the burst, then what refills within 3 s (2.55, and a little for the time the statements took)
    expect(granted.length).toBeGreaterThanOrEqual(6 + 2);
    expect(granted.length).toBeLessThanOrEqual(6 + 3);
    // each reservation one request behind the one before: no two callers took the same share
    const sorted = [...granted].sort((a, b) => b - a);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i - 1] - sorted[i]).toBeGreaterThan(0.9);
  });

  it('gives back what a call did not use, never above the capacity', async () => {
    const store = sqlRateLimits(tdb);
    const spec = bucketSpec(`bedrock:${transport}`, { tokens_per_minute: 1000, window_seconds: 3600 });
    expect((await store.reserve(spec, 1, 100, 0)).tokens).toBe(0); // the burst: 10% of 1000
    expect((await store.reserve(spec, 1, 1, 0)).granted).toBe(false);
    await store.giveBack(spec, 60);
    expect((await store.reserve(spec, 1, 50, 0)).tokens).toBeCloseTo(10, 0);
    await store.giveBack(spec, 10_000);
    expect((await store.reserve(spec, 1, 0, 0)).tokens).toBeCloseTo(100, 0);
  });
});

describe('the limiter around a model', () => {
  const reply = { text: '', calls: [], usage: { inputTokens: 10, outputTokens: 5 }, stopReason: 'stop' };
  const model: ChatModel = { provider: 'ollama', model: 'm', complete: () => Promise.resolve(reply) };

  it('gives up with RateLimitWaitError when the bucket frees up later than the call may wait', async () => {
    const store = {
      reserve: () => Promise.resolve({ granted: false, requests: 0, tokens: 0 }),
      giveBack: () => Promise.resolve(),
    };
    const limited = rateLimitedModel(model, {
      store,
      limit: { requests_per_minute: 6, window_seconds: 60 }, // one request per 11 s or so
      maxOutputTokens: 100,
      maxWaitMs: 1000,
    });
    await expect(limited.complete('', [], [], AbortSignal.timeout(5000))).rejects.toBeInstanceOf(RateLimitWaitError);
  });

  it('corrects its estimate with the usage the provider reports', async () => {
    const given: number[] = [];
    const store = {
      reserve: () => Promise.resolve({ granted: true, requests: 0, tokens: 0 }),
      giveBack: (_: unknown, tokens: number) => Promise.resolve(void given.push(tokens)),
    };
    const limited = rateLimitedModel(model, {
      store,
      limit: { tokens_per_minute: 1000, window_seconds: 60 },
      maxOutputTokens: 100,
      maxWaitMs: 1000,
    });
    await limited.complete('abcd', [], [], AbortSignal.timeout(5000));
    // estimate: 8 characters ("abcd", "[]", "[]") = 2 tokens, + 100 of output; used: 10 + 5
    expect(given).toEqual([102 - 15]);
  });
});

describe('the simulators past a limit', () => {
  const hello = [{ role: 'user' as const, text: 'hello' }];
  const once = { requests_per_minute: 1, window_seconds: 60 };

  it('Bedrock answers ThrottlingException (HTTP 429), which the adapter retries', async () => {
    const model = 'amazon.nova-lite-v1:0';
    const bedrock = new BedrockSim({ limits: { [model]: once } });
    const url = await bedrock.listen();
    try {
      const chat = bedrockModel(
        model,
        { ...DEFAULT_CONFIG.bedrock, endpoint: url },
        { accessKeyId: 'sim', secretAccessKey: 'sim' },
      );
      await chat.complete('', hello, [], AbortSignal.timeout(5000));
      const err = await chat.complete('', hello, [], AbortSignal.timeout(5000)).catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'ThrottlingException', $metadata: { httpStatusCode: 429 } });
      expect(classifyBedrockError(err)).toMatchObject({ transient: true, status: 429 });
      expect(bedrock.throttled).toMatchObject([{ model, reason: 'requests' }]);
    } finally {
      await bedrock.close();
    }
  });

  it('Ollama answers HTTP 429 with the reason in "error", which the adapter retries', async () => {
    const ollama = new OllamaSim({ limits: { [MODEL]: { tokens_per_minute: 5, window_seconds: 60 } } });
    const url = await ollama.listen();
    try {
      const chat = ollamaModel(MODEL, { ...DEFAULT_CONFIG.ollama, host: url });
      const err = await chat.complete('', hello, [], AbortSignal.timeout(5000)).catch((e: unknown) => e);
      expect(err).toMatchObject({ status_code: 429, error: expect.stringContaining('too many tokens') });
      expect(classifyOllamaError(err)).toMatchObject({ transient: true, status: 429 });
      expect(ollama.admitted).toEqual([]);
    } finally {
      await ollama.close();
    }
  });
});

const mergedLimits = (config: object) => experimentConfigSchema.parse(config).rate_limits;

describe('rate_limits in the config', () => {
  it('takes a JSON parameter keyed by provider:model', () => {
    const { config } = resolveParameters('/ariadne', [
      {
        name: '/ariadne/config/rate_limits',
        value: '{"bedrock:amazon.nova-lite-v1:0": {"requests_per_minute": 200, "tokens_per_minute": 200000}}',
        secure: false,
      },
    ]);
    expect(mergedLimits(config)).toEqual({
      'bedrock:amazon.nova-lite-v1:0': { requests_per_minute: 200, tokens_per_minute: 200_000, window_seconds: 60 },
    });
  });

  it.each([
    ['{"nova-lite": {"requests_per_minute": 200}}', /config\/rate_limits: "nova-lite" is not .*rename it/],
    ['{"bedrock:x": {"requests_per_minute": 0}}', /config\/rate_limits: .*>=1.*got "\{/],
    ['{"bedrock:x": {"rpm": 10}}', /config\/rate_limits: .*"rpm"/],
  ])('refuses %s naming the parameter and value', (value, message) => {
    expect(() =>
      resolveParameters('/ariadne', [{ name: '/ariadne/config/rate_limits', value, secure: false }]),
    ).toThrow(message);
  });
});
