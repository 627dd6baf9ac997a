// Time budgets: every function that reaches the database outlasts the
// database's retry budget, CheckProgress never opens it, and a model call
// with its retries fits the turn Lambda that makes it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { STATES, TASK_STATES } from '../core/machine/states.ts';
import { TASKS } from '../core/machine/tasks.ts';
import { DATABASE_RETRY_BUDGET_MS, DATABASE_WORK_MARGIN_MS, MODEL_CALL_BUDGET_MS } from '../core/config/budgets.ts';
import { modelCallWorstCaseMs, DEFAULT_CONFIG } from '../core/config/experiment-config.ts';
import { resolveConfig, startExperiment, type StartStore } from '../core/engine/experiment.ts';
import { InvalidInputError } from '../core/errors.ts';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('Lambda timeouts', () => {
  it('every Task but CheckProgress reaches the database', () => {
    const database = TASK_STATES.filter((s) => TASKS[s].database);
    expect(database).toEqual(TASK_STATES.filter((s) => s !== STATES.CheckProgress));
  });

  it('every database-touching Task outlasts the database retry budget plus its own work', () => {
    for (const state of TASK_STATES.filter((s) => TASKS[s].database)) {
      expect(TASKS[state].timeoutSeconds * 1000, state).toBeGreaterThan(
        DATABASE_RETRY_BUDGET_MS + DATABASE_WORK_MARGIN_MS,
      );
      expect(TASKS[state].timeoutSeconds, state).toBeLessThanOrEqual(900); // the Lambda maximum
    }
  });

  it('the CheckProgress Lambda answers with no database configured: its cold start opens none', async () => {
    for (const name of ['DATABASE_URL', 'DATABASE_SECRET_ARN', 'DATABASE_HOST']) vi.stubEnv(name, '');
    const { handler } = await import('../functions/check-progress.ts');
    const state = {
      experimentId: 'e1',
      llmProvider: 'baseline',
      turnNumber: 2,
      executionStartTurn: 1,
      startedAt: new Date().toISOString(),
      limits: { maxMoves: 100, maxDurationMinutes: 60, maxTurns: 50, turnsPerExecution: 10 },
      turn: { goalFound: false, actionsTaken: 8, halt: null },
    };
    const execution = { startTime: new Date().toISOString(), timeoutSeconds: 10_800 };
    await expect(handler({ state, execution })).resolves.toMatchObject({
      decision: 'continue',
      reason: 'running',
      next: { experimentId: 'e1', turnNumber: 3 },
    });
  });
});

describe('a model call fits its turn Lambda', () => {
  const retry = DEFAULT_CONFIG.retry;

  it('the worst case: every attempt at its timeout with the backoff between, or max_total_ms plus one attempt', () => {
    const r = { max_attempts: 3, base_delay_ms: 1000, max_delay_ms: 1500, max_total_ms: 600_000, timeout_ms: 60_000 };
    expect(modelCallWorstCaseMs(r)).toBe(3 * 60_000 + 1000 + 1500);
    expect(modelCallWorstCaseMs({ ...r, max_total_ms: 30_000 })).toBe(30_000 + 60_000);
    expect(modelCallWorstCaseMs(retry)).toBeLessThanOrEqual(MODEL_CALL_BUDGET_MS); // the defaults fit
  });

  it('refuses a provider timeout that cannot fit, naming the field, the value and the fix', () => {
    const hour = 3_600_000;
    let error: unknown;
    try {
      resolveConfig({ retry: { ...retry, timeout_ms: hour } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ name: 'InvalidInputError', field: 'config.retry.timeout_ms', value: hour });
    const message = (error as Error).message;
    expect(message).toMatch(/^config\.retry\.timeout_ms: 3600000 ms per model call/);
    expect(message).toContain(`more than the ${MODEL_CALL_BUDGET_MS} ms a model turn has`);
    expect(message).toMatch(/lower timeout_ms to at most \d+/);
    // the suggested value fits
    const fits = Number(/at most (\d+)/.exec(message)![1]);
    expect(modelCallWorstCaseMs({ ...retry, timeout_ms: fits })).toBeLessThanOrEqual(MODEL_CALL_BUDGET_MS);
  });

  it('accepts a call that fits exactly and refuses one millisecond more', () => {
    const one = { max_attempts: 1, max_total_ms: 0 };
    expect(resolveConfig({ retry: { ...one, timeout_ms: MODEL_CALL_BUDGET_MS } }).retry.timeout_ms).toBe(
      MODEL_CALL_BUDGET_MS,
    );
    expect(() => resolveConfig({ retry: { ...one, timeout_ms: MODEL_CALL_BUDGET_MS + 1 } })).toThrow(InvalidInputError);
    // retries inside the invocation count: 5 attempts of 200 s do not fit where one would
    expect(() => resolveConfig({ retry: { max_attempts: 5, max_total_ms: 3_600_000, timeout_ms: 200_000 } })).toThrow(
      /config\.retry\.timeout_ms/,
    );
  });

  it('StartExperiment refuses it before anything is written', async () => {
    const written: string[] = [];
    const store: StartStore = {
      saveMaze: () => (written.push('maze'), Promise.resolve(1)),
      createExperiment: () => (written.push('experiment'), Promise.reject(new Error('unreachable'))),
    };
    const maze = { kind: 'generated' as const, spec: { generator: 'perfect', width: 9, height: 9, seed: 1 } };
    await expect(
      startExperiment(
        { agent: 'ollama', provider: 'ollama', model: 'm', maze, config: { retry: { timeout_ms: 3_600_000 } } },
        store,
      ),
    ).rejects.toMatchObject({ name: 'InvalidInputError', field: 'config.retry.timeout_ms' });
    expect(written).toEqual([]);
  });
});
