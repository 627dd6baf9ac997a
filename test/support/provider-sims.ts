// An Ollama and a Bedrock simulator for one test file: listening before its tests (the Bedrock client given
// placeholder credentials, which the simulator accepts), closed after, their logs and faults cleared before each.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { OllamaSim } from '../../simulators/ollama-sim.ts';
import { BedrockSim } from '../../simulators/bedrock-sim.ts';
import { OpenAISim } from '../../simulators/openai-sim.ts';
import { runLocalExperiment } from '../../state-machine/local-experiment.ts';
import { STATES } from '../../core/machine/states.ts';
import type { TestDatabase } from './db.ts';

export interface ProviderSims {
  ollama: OllamaSim;
  bedrock: BedrockSim;
  /** Set once the file's tests start. */
  ollamaUrl: string;
  bedrockUrl: string;
}

export function providerSims(): ProviderSims {
  const sims: ProviderSims = { ollama: new OllamaSim(), bedrock: new BedrockSim(), ollamaUrl: '', bedrockUrl: '' };
  beforeAll(async () => {
    sims.ollamaUrl = await sims.ollama.listen();
    sims.bedrockUrl = await sims.bedrock.listen();
    process.env.AWS_ACCESS_KEY_ID = 'sim';
    process.env.AWS_SECRET_ACCESS_KEY = 'sim';
  });
  afterAll(async () => {
    await sims.ollama.close();
    await sims.bedrock.close();
  });
  beforeEach(() => {
    for (const sim of [sims.ollama, sims.bedrock]) {
      sim.requests.length = 0;
      sim.replies.length = 0;
      sim.faults = [];
      sim.always = undefined;
    }
  });
  return sims;
}

/** Retries short enough for a test, long enough for a simulated fault or two. */
export const FAST_RETRY = {
  max_attempts: 4,
  base_delay_ms: 1,
  max_delay_ms: 5,
  max_total_ms: 10_000,
  timeout_ms: 5_000,
};

/**
 * A Bedrock experiment against the simulator on `maze` (no prompt caching, fast retries, no Retry waits): `config`
 * over those, `bedrockConfig` over the bedrock section. `db`: the file's database, which exists once beforeAll ran.
 */
export const bedrockRunner =
  (sims: ProviderSims, db: () => TestDatabase, maze: { generator: string; size: number; seed: number }) =>
  (model: string, config: Record<string, unknown> = {}, bedrockConfig: Record<string, unknown> = {}) =>
    runLocalExperiment(
      {
        agent: 'bedrock',
        model,
        maze,
        config: {
          bedrock: { endpoint: sims.bedrockUrl, region: 'us-west-2', prompt_caching: false, ...bedrockConfig },
          retry: FAST_RETRY,
          ...config,
        },
      },
      { db: db(), retryIntervals: { [STATES.InvokeBedrockAgent]: 0 } },
    );

/** An OpenAI simulator for one test file: listening before its tests, closed after; `url` is its /v1 base URL. */
export function openaiSim(opts: ConstructorParameters<typeof OpenAISim>[0] = {}): { sim: OpenAISim; url: string } {
  const served = { sim: new OpenAISim(opts), url: '' };
  beforeAll(async () => {
    served.url = `${await served.sim.listen()}/v1`;
  });
  afterAll(async () => {
    await served.sim.close();
  });
  return served;
}
