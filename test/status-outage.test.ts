// `ariadne status` of a run waiting out a provider outage: the live line's words (when the provider went down, that
// the run waits, when the next try is) from what the failed tries noted, and nothing of it once the turn went through.
// The run on the local runner (its retries and wait shortened), the Ollama simulator answering 503 meanwhile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { STATES } from '../core/machine/states.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { cli, type CliResult } from './support/cli.ts';
import { FAST_RETRY } from './support/provider-sims.ts';

const MODEL = 'status-outage:1b';
const sim = new OllamaSim({ models: [MODEL] });
let db: TestDatabase;
let simUrl = '';
const { ariadneAsync } = cli(() => db);

beforeAll(async () => {
  [db, simUrl] = await Promise.all([testDatabase(), sim.listen()]);
});
afterAll(async () => {
  await Promise.all([db.drop(), sim.close()]);
});

interface StatusJson {
  running: Array<{ experiment_id: string; outage: string | null; provider_next_try_at: string | null }>;
}

describe('ariadne status during a provider outage', () => {
  it('says the provider is down, since when and when the next try is; after recovery, nothing of it', async () => {
    let during: Promise<[CliResult, CliResult]> | undefined;
    let after: Promise<CliResult> | undefined;
    let waitStarted = 0;
    const result = await runLocalExperiment(
      {
        agent: 'ollama',
        model: MODEL,
        maze: { generator: 'medium', size: 11, seed: 3 },
        config: { max_moves: 60, ollama: { host: simUrl }, retry: { ...FAST_RETRY, timeout_ms: 30_000 } },
      },
      {
        db,
        retryIntervals: { [STATES.InvokeOllamaAgent]: 0 },
        // long enough for status to ask while the run waits
        waitIntervals: { [STATES.OutageWait]: 10_000 },
        onTurn: (t) => {
          // the first turn is answered, then every call fails until the run waits
          if (t.turnNumber === 1) sim.always = { kind: 'status', status: 503 };
          // the turn after the outage went through: status asks while the next turn's first reply is held
          if (t.turnNumber === 2 && !after) {
            sim.always = { kind: 'slow', ms: 8_000 };
            after = ariadneAsync(['status', '--json']).finally(() => {
              sim.always = undefined;
            });
          }
        },
        onProviderWait: (w) => {
          if (!w || during) return;
          waitStarted = Date.now();
          sim.always = undefined;
          during = Promise.all([ariadneAsync(['status', '--json']), ariadneAsync(['status', '--wide'])]);
        },
      },
    );
    expect(result.summary?.status).not.toBe('running');
    expect(during && after).toBeDefined();
    const [json, text] = await during!;
    expect(json.code, json.stderr).toBe(0);
    const [run] = (JSON.parse(json.stdout) as StatusJson).running;
    expect(run.experiment_id).toBe(result.experimentId);
    expect(run.outage).toMatch(/^provider down since \d\d:\d\d, waiting, next try in \d+ s$/);
    // the machine's retries of the turn were spent: the next try is after the first outage wait, 15 s
    const nextIn = (new Date(run.provider_next_try_at!).getTime() - waitStarted) / 1000;
    expect(nextIn).toBeGreaterThan(10);
    expect(nextIn).toBeLessThanOrEqual(16);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`WAITING ${result.experimentId}: provider down since `);
    expect(text.stdout).toMatch(/waiting, next try in \d+ s/);
    expect(text.stdout).not.toMatch(/STALE/);

    const recovered = await after!;
    expect(recovered.code, recovered.stderr).toBe(0);
    const still = (JSON.parse(recovered.stdout) as StatusJson).running;
    expect(still.map((r) => r.experiment_id)).toEqual([result.experimentId]);
    expect(still[0]).toMatchObject({ outage: null, provider_next_try_at: null });
  }, 120_000);
});
