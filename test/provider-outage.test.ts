// A model provider down for longer than a turn's retries: the run waits with backoff and tries
// the turn again (OutageWait, OutageResume), up to provider_outage_wait_minutes, then ends failed with what it
// waited in its reason. Through the real state machine on the local runner (the Wait state's time shortened, the
// schedule as CheckProgress chose it), the Ollama simulator answering 503 to every call meanwhile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { checkProgressHandler } from '../functions/check-progress.ts';
import { outageWaitSeconds } from '../core/engine/provider-outage.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { STATES } from '../core/machine/states.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { FAST_RETRY } from './support/provider-sims.ts';

const NO_WAIT = { [STATES.InvokeOllamaAgent]: 0 };
const SHORT_WAITS = { [STATES.OutageWait]: 20 };
const MAZE = { generator: 'medium', size: 11, seed: 3 };
let db: TestDatabase;
/** One simulator for the disturbed runs, one for the same runs undisturbed: each keeps its own map per model. */
const MODELS = ['outage-a:1b', 'outage-b:1b', 'outage-c:1b', 'outage-d:1b', 'outage-e:1b'];
const sim = new OllamaSim({ models: MODELS });
const calm = new OllamaSim({ models: MODELS });
let simUrl = '';
let calmUrl = '';

beforeAll(async () => {
  [db, simUrl, calmUrl] = await Promise.all([testDatabase(), sim.listen(), calm.listen()]);
});
afterAll(async () => {
  await Promise.all([db.drop(), sim.close(), calm.close()]);
});

const run = (
  model: string,
  host: string,
  config: Record<string, unknown> = {},
  on: { wait?: () => void; turn?: (n: number) => void } = {},
) =>
  runLocalExperiment(
    { agent: 'ollama', model, maze: MAZE, config: { max_moves: 24, ollama: { host }, retry: FAST_RETRY, ...config } },
    {
      db,
      retryIntervals: NO_WAIT,
      waitIntervals: SHORT_WAITS,
      onProviderWait: (w) => w && on.wait?.(),
      onTurn: (t) => on.turn?.(t.turnNumber),
    },
  );

const actionsOf = async (id: string) =>
  (
    await db.query<{ a: string }>(
      `SELECT concat_ws(' ', turn_number, call_index, tool, outcome, to_x, to_y) AS a FROM actions
       WHERE experiment_id = $1 ORDER BY turn_number, call_index`,
      [id],
    )
  ).rows.map((r) => r.a);

describe("CheckProgress's next loop state (what ContinueLoop passes on)", () => {
  it('is the next turn, its waits reset, the token and limits carried, the turn and extras left behind', async () => {
    const loop = {
      experimentId: 'e',
      llmProvider: 'baseline',
      turnNumber: 7,
      executionStartTurn: 1,
      startedAt: new Date(0).toISOString(),
      limits: { maxMoves: 100, maxDurationMinutes: 60, maxTurns: 50, turnsPerExecution: 1000, outageWaitSeconds: 60 },
      taskToken: 'token-of-the-sweep',
      outage: { waits: 2, seconds: 45, total: 45, here: 2 },
    };
    const turn = { goalFound: false, actionsTaken: 56, halt: null, position: { x: 1, y: 1 } };
    const progress = await checkProgressHandler({ now: () => new Date(1_000) })({
      state: { ...loop, turn, someExtra: 1 },
      execution: { startTime: new Date(0).toISOString(), timeoutSeconds: 10_800 },
    });
    expect(progress).toEqual({
      decision: 'continue',
      reason: 'running',
      next: { ...loop, turnNumber: 8, outage: { waits: 0, seconds: 0, total: 45, here: 2 } },
    });
    // nothing else decides to go on: an end carries no next state
    const done = await checkProgressHandler({ now: () => new Date(1_000) })({
      ...loop,
      turn: { ...turn, goalFound: true },
    });
    expect(done).toEqual({ decision: 'success', reason: 'goal_found' });
  });
});

describe('CheckProgress after a turn the provider failed', () => {
  const state = (outage: object, limits: object = {}) => ({
    experimentId: 'e',
    llmProvider: 'ollama',
    turnNumber: 7,
    executionStartTurn: 1,
    startedAt: new Date(0).toISOString(),
    limits: { maxMoves: 100, maxDurationMinutes: 60, maxTurns: 50, turnsPerExecution: 1000, ...limits },
    taskToken: null,
    outage,
    outageError: { Error: 'ProviderTransientError', Cause: 'ollama model "m": 503 gave up after 4 attempts' },
  });
  const check = (s: object, clock?: { startTime: string; timeoutSeconds: number }, now = new Date(1_000)) =>
    checkProgressHandler({ now: () => now })(clock ? { state: s, execution: clock } : s);

  it('waits 15 s, then twice as long each time up to 5 min, within provider_outage_wait_minutes', async () => {
    expect(Array.from({ length: 8 }, (_, n) => outageWaitSeconds(n))).toEqual([15, 30, 60, 120, 240, 300, 300, 300]);
    const first = await check(state({ waits: 0, seconds: 0, total: 40, here: 0 }, { outageWaitSeconds: 3600 }));
    const { outageError, ...loop } = state({ waits: 0, seconds: 0, total: 40, here: 0 }, { outageWaitSeconds: 3600 });
    expect(outageError).toBeDefined();
    expect(first).toEqual({
      decision: 'provider_wait',
      reason: 'provider_outage',
      waitSeconds: 15,
      // OutageResume goes on from this: the same turn, the waits counted, the error left behind
      next: { ...loop, outage: { waits: 1, seconds: 15, total: 55, here: 1 } },
    });
    const fourth = await check(state({ waits: 3, seconds: 105, total: 105, here: 3 }, { outageWaitSeconds: 3600 }));
    expect(fourth).toMatchObject({ waitSeconds: 120, next: { outage: { waits: 4, seconds: 225 } } });
  });

  it('ends the run when the next wait would pass the ceiling, saying what was waited and why', async () => {
    const over = await check(state({ waits: 2, seconds: 45, total: 45, here: 2 }, { outageWaitSeconds: 60 }));
    expect(over).toEqual({
      decision: 'provider_outage',
      reason: 'provider_outage',
      detail:
        'the provider stayed unavailable, after 2 wait(s), 45 s in all, the most provider_outage_wait_minutes (1) ' +
        'allows: ProviderTransientError: ollama model "m": 503 gave up after 4 attempts',
    });
    const none = await check(state({ waits: 0, seconds: 0, total: 0, here: 0 }, { outageWaitSeconds: 0 }));
    expect(none).toMatchObject({ decision: 'provider_outage', detail: expect.stringContaining('no wait allowed') });
  });

  it('tries the same turn in a new execution when the wait would not fit this one', async () => {
    // 3 h execution started at 0; now 2 h 50 min: a 15 s wait and a 15-min turn reserve pass its end
    const clock = { startTime: new Date(0).toISOString(), timeoutSeconds: 3 * 3600 };
    const late = await check(
      state({ waits: 1, seconds: 15, total: 15, here: 1 }, { outageWaitSeconds: 3600 }),
      clock,
      new Date(170 * 60_000),
    );
    expect(late).toEqual({
      decision: 'continue_as_new',
      reason: 'execution_time',
      continuation: { name: 'e-t7-w1', turnNumber: 7, outage: { waits: 1, seconds: 15, total: 15, here: 0 } },
    });
  });

  it("leaves the time waited out of the run's duration, and hands over normally at the next turn", async () => {
    const after = (total: number) =>
      check(
        {
          ...state({ waits: 0, seconds: 0, total, here: 0 }),
          outageError: undefined,
          turn: { goalFound: false, actionsTaken: 10, halt: null },
        },
        undefined,
        new Date(61 * 60_000), // 61 minutes after the start, of 60 allowed
      );
    expect(await after(0)).toMatchObject({ decision: 'timeout', reason: 'max_duration' });
    expect(await after(120)).toMatchObject({ decision: 'continue' }); // 2 of them were an outage's
  });
});

describe('a provider outage longer than the retries', () => {
  it('pauses the run, which tries the turn again once the provider is back: the actions as undisturbed', async () => {
    const undisturbed = await run('outage-a:1b', calmUrl);
    let waits = 0;
    // the first turn is answered; then every call 503, until the run has waited three times
    const disturbed = await run(
      'outage-a:1b',
      simUrl,
      {},
      {
        turn: (n) => {
          if (n === 1) sim.always = { kind: 'status', status: 503 };
        },
        wait: () => {
          if (++waits === 3) sim.always = undefined;
        },
      },
    );
    expect(waits).toBe(3);
    expect(disturbed.summary).toMatchObject({ status: undisturbed.summary!.status });
    expect(await actionsOf(disturbed.experimentId!)).toEqual(await actionsOf(undisturbed.experimentId!));
    // the turn records the three waits the state machine chose (15 + 30 + 60 s), as if they had been taken
    const { rows } = await db.query<{ turn_number: number; provider_waits: number; provider_wait_seconds: number }>(
      `SELECT turn_number, provider_waits, provider_wait_seconds FROM turns
       WHERE experiment_id = $1 AND provider_waits > 0`,
      [disturbed.experimentId],
    );
    expect(rows).toEqual([{ turn_number: 2, provider_waits: 3, provider_wait_seconds: 105 }]);
  });

  it('ends the run failed after provider_outage_wait_minutes, with the wait and the error as its reason', async () => {
    sim.always = { kind: 'status', status: 503 };
    try {
      let waits = 0;
      const failing = run('outage-b:1b', simUrl, { provider_outage_wait_minutes: 1 }, { wait: () => waits++ });
      await expect(failing).rejects.toThrow();
      expect(waits).toBe(2); // 15 + 30 s; 60 more would pass the minute
      const { rows } = await db.query<{ status: string; failure_reason: string }>(
        "SELECT status, failure_reason FROM experiments WHERE model = 'outage-b:1b'",
      );
      expect(rows[0].status).toBe('failed');
      expect(rows[0].failure_reason).toMatch(
        new RegExp(
          '^ProviderTransientError: the provider stayed unavailable, after 2 wait\\(s\\), 45 s in all, the most ' +
            'provider_outage_wait_minutes \\(1\\) allows: ProviderTransientError: ollama model "outage-b:1b": 503',
        ),
      );
    } finally {
      sim.always = undefined;
    }
  });

  it('a stop during a wait ends it at once: the run is marked interrupted, to be resumed', async () => {
    sim.always = { kind: 'status', status: 503 };
    const stop = new AbortController();
    const started = Date.now();
    try {
      const stopped = runLocalExperiment(
        {
          agent: 'ollama',
          model: 'outage-e:1b',
          maze: MAZE,
          config: { max_moves: 24, ollama: { host: simUrl }, retry: FAST_RETRY },
        },
        {
          db,
          retryIntervals: NO_WAIT,
          // a wait of ten minutes, as a long outage's: the stop must not sit it out
          waitIntervals: { [STATES.OutageWait]: 600_000 },
          signal: stop.signal,
          onProviderWait: (w) => w && stop.abort('SIGTERM to ariadne run'),
        },
      );
      await expect(stopped).rejects.toMatchObject({ name: 'ExperimentInterruptedError' });
      expect(Date.now() - started).toBeLessThan(60_000);
      const { rows } = await db.query<{ status: string; interrupted_reason: string | null }>(
        "SELECT status, interrupted_reason FROM experiments WHERE model = 'outage-e:1b'",
      );
      expect(rows).toEqual([{ status: 'running', interrupted_reason: 'SIGTERM to ariadne run' }]);
    } finally {
      sim.always = undefined;
    }
  });

  it('in a sweep: every run pauses, the live line says so, and all finish when the provider is back', async () => {
    const sweep = loadSweep(`sweep: outage-sweep
agents:
  - { agent: ollama, model: "outage-c:1b" }
  - { agent: ollama, model: "outage-d:1b" }
mazes: { generators: [medium], sizes: [11], seeds: [3] }
config: { max_moves: 16, ollama: { host: "${simUrl}" }, retry: { max_attempts: 2, base_delay_ms: 1, timeout_ms: 5000 } }
max_concurrency: 2
`);
    sim.always = { kind: 'status', status: 503 };
    let sawBothWaiting = false;
    const result = await runLocalSweep(sweep, {
      db,
      retryIntervals: NO_WAIT,
      waitIntervals: { [STATES.OutageWait]: 100 },
      onProgress: (p) => {
        const waiting = [...p.running.values()].filter((r) => r.waiting).length;
        if (waiting === 2 && !sawBothWaiting) {
          sawBothWaiting = true;
          sim.always = undefined; // the provider is back
        }
      },
    });
    sim.always = undefined;
    expect(sawBothWaiting).toBe(true);
    expect(result).toMatchObject({ done: 2, failed: 0 });
  });
});
