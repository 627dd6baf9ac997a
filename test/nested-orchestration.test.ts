// Nested orchestration on this machine: chunks of turns in Express executions of the turn machine, started by the
// Standard experiment machine. Whatever a chunk meets (its 5 minutes, slow turns, a second delivery, a stop), the
// action log is the one an all-Standard run writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ExperimentInterruptedError,
  resumeInput,
  runLocalExperiment,
  type LocalExperimentOptions,
} from '../state-machine/local-experiment.ts';
import { STATES } from '../core/machine/states.ts';
import { CHUNK_MARGIN_SECONDS, EXPRESS_MAX_SECONDS, PER_TURN_ABOVE_SECONDS } from '../core/config/budgets.ts';
import { actionLog, testDatabase, type TestDatabase } from './support/db.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});

const experiment = (experimentId: string) => ({
  experimentId,
  agent: 'random',
  agentSeed: 11,
  maze: { generator: 'perfect', size: 31, seed: 4 },
  config: { max_moves: 240, max_actions_per_turn: 6 },
});

const log = (id: string) => actionLog(db, id);

/** A clock the test moves: each turn takes `secondsPerTurn` of it. */
function turnClock(secondsPerTurn: number): Pick<LocalExperimentOptions, 'now' | 'wrap'> {
  let t = Date.now();
  return {
    now: () => new Date(t),
    wrap: (state, handler) => async (event) => {
      const out = await handler(event);
      if (state === STATES.InvokeBaselineAgent) t += secondsPerTurn * 1000;
      return out;
    },
  };
}

/** Standard state transitions (the billed ones) and the chunks' transitions, counted apart. */
function transitions() {
  const counts = { standard: 0, chunk: 0, standardTurns: 0 };
  const onEvent: LocalExperimentOptions['onEvent'] = (e) => {
    if (e.type !== 'StateEntered') return;
    if (e.machine === 'chunk') counts.chunk++;
    else {
      counts.standard++;
      if (e.state?.name === STATES.InvokeBaselineAgent) counts.standardTurns++;
    }
  };
  return { counts, onEvent };
}

let reference: Awaited<ReturnType<typeof log>>;
beforeAll(async () => {
  const standard = await runLocalExperiment(experiment('all-standard'), { db, orchestration: 'standard' });
  expect(standard.summary).toMatchObject({ status: 'timeout', stop_reason: 'max_moves', actions: 240 });
  reference = await log('all-standard');
  expect(reference).toHaveLength(240);
});

describe('nested orchestration, run locally', () => {
  it("writes the all-Standard run's log, its turns in chunks, with a handful of Standard transitions", async () => {
    const { counts, onEvent } = transitions();
    const run = await runLocalExperiment(experiment('nested'), { db, onEvent });
    expect(await log('nested')).toEqual(reference);
    expect(run.chunks.length).toBeGreaterThanOrEqual(1);
    expect(run.chunks.every((c) => c.status === 'SUCCEEDED' && !c.duplicate)).toBe(true);
    expect(run.chunks.reduce((n, c) => n + c.turns, 0)).toBe(run.summary!.turns);
    // no turn in the Standard execution: StartExperiment, a few states per chunk, the finalizer
    expect(counts.standardTurns).toBe(0);
    expect(counts.standard).toBeLessThan(10 + 6 * run.chunks.length);
    expect(counts.chunk).toBeGreaterThan(4 * run.summary!.turns);
  });

  it("a chunk hands back before Express's 5 minutes, by the pace of its turns", async () => {
    const seconds = 20;
    const run = await runLocalExperiment(experiment('paced'), { db, ...turnClock(seconds) });
    expect(await log('paced')).toEqual(reference);
    // elapsed + 2 x slowest turn + margin must stay under the limit: 20 k + 40 + 30 < 300 holds for k <= 11
    const most = Math.floor((EXPRESS_MAX_SECONDS - CHUNK_MARGIN_SECONDS - 2 * seconds) / seconds);
    const turns = run.chunks.map((c) => c.turns);
    expect(Math.max(...turns)).toBe(most + 1);
    expect(turns.slice(0, -1).every((n) => n === most + 1)).toBe(true);
    expect(turns.reduce((a, b) => a + b, 0)).toBe(run.summary!.turns);
    expect(run.chunks.length).toBe(Math.ceil(run.summary!.turns / (most + 1)));
  });

  it('turns too slow for a chunk go on one at a time in the Standard execution', async () => {
    const { counts, onEvent } = transitions();
    const run = await runLocalExperiment(experiment('slow'), {
      db,
      onEvent,
      ...turnClock(PER_TURN_ABOVE_SECONDS + 1),
    });
    expect(await log('slow')).toEqual(reference);
    // the first chunk saw one slow turn and handed back; every later turn ran in the Standard execution
    expect(run.chunks.map((c) => c.turns)).toEqual([1]);
    expect(counts.standardTurns).toBe(run.summary!.turns - 1);
  });

  it('a chunk stopped at the Express limit leaves its turns to the Standard execution: none twice', async () => {
    let slowed = false;
    const run = await runLocalExperiment(experiment('timed-out'), {
      db,
      // a 300 ms Express limit here; the chunk's third turn takes 500 ms, once
      expressMaxMs: 300,
      wrap: (state, handler) => async (event) => {
        const turn = (event as { turnNumber?: number }).turnNumber;
        if (state === STATES.InvokeBaselineAgent && turn === 3 && !slowed) {
          slowed = true;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
        return handler(event);
      },
    });
    expect(run.chunks[0].status).toBe('TIMED_OUT');
    expect(await log('timed-out')).toEqual(reference);
    expect(run.summary).toMatchObject({ status: 'timeout', actions: 240 });
  });

  it('every chunk delivered twice, the deliveries racing: the log is written once', async () => {
    const run = await runLocalExperiment(experiment('twice'), { db, duplicateChunks: () => true });
    expect(await log('twice')).toEqual(reference);
    const duplicates = run.chunks.filter((c) => c.duplicate);
    expect(duplicates).toHaveLength(run.chunks.length / 2);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM turns WHERE experiment_id = $1', ['twice']);
    expect(rows[0].n).toBe(run.summary!.turns);
  });

  it('killed in the middle of a chunk and resumed: the log of an undisturbed run', async () => {
    const stop = new AbortController();
    const wrap: LocalExperimentOptions['wrap'] = (state, handler) => async (event) => {
      const out = await handler(event);
      if (state === STATES.InvokeBaselineAgent && (event as { turnNumber: number }).turnNumber === 7)
        stop.abort('SIGINT');
      return out;
    };
    await expect(runLocalExperiment(experiment('killed'), { db, wrap, signal: stop.signal })).rejects.toBeInstanceOf(
      ExperimentInterruptedError,
    );
    const partial = await log('killed');
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(reference.length);
    const resumed = await runLocalExperiment((await resumeInput(db, 'killed')) as never, { db });
    expect(resumed.summary).toMatchObject({ status: 'timeout', actions: 240 });
    expect(await log('killed')).toEqual(reference);
  });
});
