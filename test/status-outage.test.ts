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
const { spawned } = cli(() => db);

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
    let firstWait = 0;
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
        waitIntervals: { [STATES.OutageWait]: 2_000 },
        onTurn: (t) => {
          // the first turn is answered, then every call fails until status has been asked during a wait
          if (t.turnNumber === 1) sim.always = { kind: 'status', status: 503 };
          // the turn after the outage went through: status asks while the next turn's first reply is held
          if (t.turnNumber === 2 && !after) {
            sim.faults.push({ kind: 'slow', ms: 15_000 });
            after = spawned(['status', '--json']);
          }
        },
        onProviderWait: (w) => {
          if (!w || during) return;
          firstWait = Date.now();
          // however long status takes, the run waits on (a wait, a failed try, a longer wait) until it has answered
          during = Promise.all([spawned(['status', '--json']), spawned(['status', '--wide'])]).finally(() => {
            sim.always = undefined;
          });
        },
      },
    );
    expect(result.summary?.status).not.toBe('running');
    // the outage was waited out at turn 2, which then went through
    const { rows } = await db.query<{ waits: number }>(
      'SELECT provider_waits AS waits FROM turns WHERE experiment_id = $1 AND turn_number = 2',
      [result.experimentId],
    );
    expect(rows[0].waits).toBeGreaterThanOrEqual(1);
    expect(during && after).toBeDefined();
    const [json, text] = await during!;
    expect(json.code, json.stderr).toBe(0);
    const [run] = (JSON.parse(json.stdout) as StatusJson).running;
    expect(run.experiment_id).toBe(result.experimentId);
    expect(run.outage).toMatch(/^provider down since \d\d:\d\d, waiting, next try in \d+ s$/);
    // after the turn's retries, the next try is an outage wait's (15 s, then 30 s, ... as on AWS) away
    const nextIn = (new Date(run.provider_next_try_at!).getTime() - firstWait) / 1000;
    expect(nextIn).toBeGreaterThan(10);
    expect(nextIn).toBeLessThanOrEqual(300);
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
