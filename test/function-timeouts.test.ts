// A turn function stopped at its timeout, as a Task through lambda:invoke sees it (Lambda.Unknown with the payload in
// its Cause, or Sandbox.Timedout): the synthesized machine runs the turn once more, nothing lost or doubled whether
// or not the stopped invocation committed, and finalizes a second timeout as failed with the timeout as its reason,
// an infrastructure error rather than a navigation failure.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { FUNCTION_TIMEOUT_ERRORS, STATES, TURN_TIMEOUT_RETRY } from '../core/machine/states.ts';
import { functionTimeout, taskError } from '../rehearsal/lambda-process.ts';
import { LLM_TURN_TIMEOUT_SECONDS } from '../core/config/budgets.ts';
import type { Handler } from '../functions/deps.ts';
import { ledgerProblems, testDatabase, type TestDatabase } from './support/db.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});

const experiment = () => ({
  agent: 'random',
  agentSeed: 11,
  maze: { generator: 'perfect', size: 21, seed: 4 },
  config: { max_moves: 60 },
});
const NO_WAIT = { [STATES.InvokeBaselineAgent]: 0 };

/** A function timeout by each name it comes under, as the Task's error (Error = name, Cause = message). */
const TIMEOUTS: Record<string, () => Error> = {
  // what the rehearsal's Lambda answers for a function past its timeout
  'Lambda.Unknown': () => {
    const r = functionTimeout(randomUUID(), LLM_TURN_TIMEOUT_SECONDS);
    if (r.ok) throw new Error('functionTimeout answered ok');
    return taskError(r);
  },
  // a runtime that names the timeout in its payload: the integration takes errorType as the Error
  'Sandbox.Timedout': () =>
    Object.assign(
      new Error(
        JSON.stringify({
          errorType: 'Sandbox.Timedout',
          errorMessage: `RequestId: ${randomUUID()} Error: Task timed out after 900.00 seconds`,
        }),
      ),
      { name: 'Sandbox.Timedout' },
    ),
};

async function actionLog(id: string | null) {
  return (
    await db.pool.query(
      `SELECT turn_number, call_index, step_number, tool, outcome, from_x, from_y, to_x, to_y
       FROM actions WHERE experiment_id = $1 ORDER BY turn_number, call_index`,
      [id],
    )
  ).rows;
}

/** Calls of the turn handler per turn number. */
type Attempts = Map<number, number>;

/** The baseline turn handler, failing as `fail` says on the attempts it names. */
function turnsThat(fail: (turn: number, attempt: number) => 'before' | 'after' | null, timeout: () => Error) {
  const attempts: Attempts = new Map();
  const wrap = (state: string, handler: Handler): Handler =>
    state !== STATES.InvokeBaselineAgent
      ? handler
      : async (event) => {
          const turn = (event as { turnNumber: number }).turnNumber;
          const attempt = (attempts.get(turn) ?? 0) + 1;
          attempts.set(turn, attempt);
          const when = fail(turn, attempt);
          // Lambda may stop the function before its commit, or after it, before the answer went back
          if (when === 'before') throw timeout();
          const out = await handler(event);
          if (when === 'after') throw timeout();
          return out;
        };
  return { attempts, wrap };
}

describe.each(FUNCTION_TIMEOUT_ERRORS)('a turn function stopped at its timeout (%s)', (name) => {
  it('runs the turn once more: the run ends as an uninterrupted one would, every action logged once', async () => {
    const plain = await runLocalExperiment(experiment(), { db });
    // turn 2 is stopped after it committed, turn 3 before: the retry replays the one and runs the other
    const { attempts, wrap } = turnsThat(
      (turn, attempt) => (attempt > 1 ? null : turn === 2 ? 'after' : turn === 3 ? 'before' : null),
      TIMEOUTS[name],
    );
    const timedOut = await runLocalExperiment(experiment(), { db, wrap, retryIntervals: NO_WAIT });
    expect(attempts.get(2)).toBe(2);
    expect(attempts.get(3)).toBe(2);
    expect(attempts.get(4)).toBe(1);
    expect(timedOut.summary).toMatchObject({
      status: plain.summary!.status,
      stop_reason: plain.summary!.stop_reason,
      actions: plain.summary!.actions,
      turns: plain.summary!.turns,
      failure_reason: null,
    });
    expect(await actionLog(timedOut.experimentId)).toEqual(await actionLog(plain.experimentId));
    expect(await ledgerProblems(db, [timedOut.experimentId!])).toEqual([]);
  });

  it('a second timeout is finalized failed with the timeout as its reason, not as a navigation failure', async () => {
    const { attempts, wrap } = turnsThat((turn) => (turn === 2 ? 'before' : null), TIMEOUTS[name]);
    const run = runLocalExperiment(experiment(), { db, wrap, retryIntervals: NO_WAIT });
    const err = (await run.then(
      () => null,
      (e: unknown) => e,
    )) as { name: string; experimentId: string; summary: Record<string, unknown> } | null;
    expect(err?.name).toBe('ExperimentFailedError');
    expect(attempts.get(2)).toBe(1 + TURN_TIMEOUT_RETRY.maxAttempts);
    expect(attempts.get(3)).toBeUndefined();
    expect(err!.summary).toMatchObject({
      status: 'failed', // an error, counted apart from successes and failures (migrations/011), never 'timeout'
      stop_reason: 'error',
      goal_found: false,
      turns: 1,
      failure_reason: expect.stringMatching(
        new RegExp(
          `^${name.replace('.', '\\.')}: the Lambda function ran past its timeout \\(RequestId: [0-9a-f-]{36} ` +
            'Error: Task timed out after 900\\.00 seconds\\)$',
        ),
      ),
    });
    expect(await ledgerProblems(db, [err!.experimentId])).toEqual([]);
  });
});
