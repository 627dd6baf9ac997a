// A sweep fits the account it runs in: its width capped to the Lambda concurrency the account has
// free, its length checked against one Standard execution, both by RegisterSweep at run time (and by the CLI before:
// test/bedrock-quotas.test.ts, test/launch.test.ts); the account read through the real Lambda SDK client from the
// Lambda simulator's GetAccountSettings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LambdaClient } from '@aws-sdk/client-lambda';
import {
  capConcurrency,
  HEADROOM_SHARE,
  MIN_HEADROOM,
  STANDARD_EXECUTION_MAX_SECONDS,
  sweepConcurrencyCap,
  sweepDuration,
  SWEEP_TIME_MARGIN,
  SweepTooLongError,
} from '../core/sweeps/sweep-capacity.ts';
import { registerSweepHandler } from '../functions/register-sweep.ts';
import { lambdaAccountConcurrency, AccountSettingsError } from '../functions/lambda-concurrency.ts';
import { LambdaSim } from '../simulators/lambda-sim.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { baselineAgents } from '../core/providers/baselines.ts';
import { MAX_DURATION_MINUTES } from '../core/config/experiment-config.ts';
import { turnReserveSeconds } from '../core/machine/tasks.ts';
import { ParameterCache } from '../core/config/parameters.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

const lambda = new LambdaSim();
let endpoint = '';
let db: TestDatabase;
beforeAll(async () => {
  endpoint = await lambda.listen();
  db = await testDatabase(2);
});
afterAll(async () => {
  await lambda.close();
  await db?.drop();
});

const reader = () =>
  lambdaAccountConcurrency(
    new LambdaClient({
      region: 'eu-west-1',
      endpoint,
      credentials: { accessKeyId: 'AKIASIM', secretAccessKey: 'sim' },
      maxAttempts: 1,
    }),
  );

describe('the width a sweep may run at', () => {
  it('leaves a fifth of the unreserved pool, at least 2, and never goes below 1', () => {
    expect([HEADROOM_SHARE, MIN_HEADROOM]).toEqual([0.2, 2]);
    expect([1, 2, 3, 4, 10, 11, 50, 100, 1000].map(sweepConcurrencyCap)).toEqual([1, 1, 1, 2, 8, 8, 40, 80, 800]);
  });

  it('caps a request wider than the account, keeps one that fits, and keeps the request when the read failed', () => {
    const small = { concurrentExecutions: 10, unreservedConcurrentExecutions: 10 };
    expect(capConcurrency(50, small, 'eu-west-1')).toMatchObject({
      requested: 50,
      maxConcurrency: 8,
      unreserved: 10,
      cap: 8,
      capped: true,
      note: expect.stringMatching(/^8 experiments at a time, not 50: .* 10 unreserved .* in eu-west-1 .* leaves 2/),
    });
    // reserved concurrency counts: the cap comes from what is unreserved, not the account's total
    expect(capConcurrency(4, { concurrentExecutions: 1000, unreservedConcurrentExecutions: 6 }).maxConcurrency).toBe(4);
    expect(capConcurrency(5, { concurrentExecutions: 1000, unreservedConcurrentExecutions: 6 }).maxConcurrency).toBe(4);
    expect(capConcurrency(200, { concurrentExecutions: 1000, unreservedConcurrentExecutions: 1000 })).toMatchObject({
      maxConcurrency: 200,
      capped: false,
    });
    expect(capConcurrency(50, { error: 'AccessDeniedException: no' })).toMatchObject({
      maxConcurrency: 50,
      cap: null,
      note: expect.stringMatching(/not read \(AccessDeniedException: no\): 50 at a time as asked/),
    });
  });

  it('reads the account with GetAccountSettings through the SDK client', async () => {
    lambda.account = { concurrentExecutions: 10, unreservedConcurrentExecutions: 7 };
    expect(await reader()()).toEqual({ concurrentExecutions: 10, unreservedConcurrentExecutions: 7 });
    expect(lambda.requests.at(-1)).toMatchObject({ method: 'GET', path: '/2016-08-19/account-settings' });
    await expect(
      lambdaAccountConcurrency({ send: () => Promise.resolve({ AccountLimit: {} }) } as unknown as LambdaClient)(),
    ).rejects.toBeInstanceOf(AccountSettingsError);
  });
});

describe('the length a sweep may run', () => {
  const runs = (n: number, config: Record<string, unknown> = {}) => Array.from({ length: n }, () => config);

  it('is waves of its longest run (its max_duration_minutes and a turn reserve) with a quarter more', () => {
    const d = sweepDuration([...runs(9), { max_duration_minutes: 600 }], 4);
    const perRun = 600 * 60 + Math.max(...(['bedrock', 'ollama', 'baseline'] as const).map(turnReserveSeconds));
    expect(d).toMatchObject({ runs: 10, waves: 3, perRunSeconds: perRun, fits: true });
    expect(SWEEP_TIME_MARGIN).toBe(1.25);
    expect(d.boundSeconds).toBe(Math.ceil(3 * perRun * SWEEP_TIME_MARGIN));
    // the default max_duration_minutes (120) when the run does not set it
    expect(sweepDuration(runs(1), 1).perRunSeconds).toBe(120 * 60 + perRun - 600 * 60);
  });

  it('refuses what one Standard execution (a year) cannot hold, and fits it at a greater width', () => {
    const week = runs(10_000, { max_duration_minutes: MAX_DURATION_MINUTES });
    expect(sweepDuration(week, 8)).toMatchObject({ waves: 1250, fits: false, limitSeconds: 365 * 86_400 });
    expect(sweepDuration(week, 800)).toMatchObject({ waves: 13, fits: true });
    expect(STANDARD_EXECUTION_MAX_SECONDS).toBe(31_536_000);
    const err = new SweepTooLongError('big', sweepDuration(week, 8), 8);
    expect(err.name).toBe('SweepTooLongError');
    expect(err.message).toMatch(/^sweep "big" cannot end within one Step Functions execution: 10000 runs, 8 at a time/);
  });
});

describe('RegisterSweep fits the sweep to the account before it writes anything', () => {
  const spec = (name: string, extra = '') =>
    `sweep: ${name}\nagents: [{ agent: frontier }]\nmazes: { generators: [medium], sizes: [7], seeds: [1, 2, 3] }\n` +
    `repeats: 4\nmax_concurrency: 50\n${extra}`;
  const deps = () => ({ store: new PgStore(db), agents: baselineAgents, now: () => new Date() });
  const sweepRows = async (id: string) =>
    (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM sweeps WHERE id = $1', [id])).rows[0].n;

  it('caps the Map to a new account (10 concurrent executions): MaxConcurrencyPath reads its output', async () => {
    lambda.account = { concurrentExecutions: 10, unreservedConcurrentExecutions: 10 };
    const out = await registerSweepHandler(deps(), reader())({ sweep: { id: 'narrow', specText: spec('narrow') } });
    expect(out).toMatchObject({ sweepId: 'narrow', cells: 3, runs: 12, maxConcurrency: 8 });
    expect(out.concurrency).toMatchObject({ requested: 50, capped: true, unreserved: 10 });
    expect(out.duration).toMatchObject({ waves: 2, fits: true, note: expect.stringMatching(/^12 runs, 8 at a time/) });
    expect(await sweepRows('narrow')).toBe(1);
    // the launcher's request (the CLI's, already fitted) wins over the file's when it is narrower
    const asked = await registerSweepHandler(
      deps(),
      reader(),
    )({
      sweep: { id: 'narrow', specText: spec('narrow') },
      maxConcurrency: 3,
    });
    expect(asked.maxConcurrency).toBe(3);
  });

  it('refuses, writing nothing, a sweep that could not end within the year at the width it gets', async () => {
    lambda.account = { concurrentExecutions: 10, unreservedConcurrentExecutions: 3 };
    const text = spec('too-long', `config: { max_duration_minutes: ${MAX_DURATION_MINUTES} }\n`).replace(
      'seeds: [1, 2, 3]',
      `seeds: [${Array.from({ length: 60 }, (_, i) => i).join(', ')}]`,
    );
    const err = await registerSweepHandler(
      deps(),
      reader(),
    )({ sweep: { id: 'too-long', specText: text } }).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(SweepTooLongError);
    expect((err as Error).name).toBe('SweepTooLongError'); // what the sweep execution fails with
    expect(await sweepRows('too-long')).toBe(0);
  });

  it('counts the deployed max_duration_minutes (Parameter Store) for runs that do not set their own', async () => {
    lambda.account = { concurrentExecutions: 10, unreservedConcurrentExecutions: 3 };
    const text = spec('deployed-long').replace(
      'seeds: [1, 2, 3]',
      `seeds: [${Array.from({ length: 60 }, (_, i) => i).join(', ')}]`,
    );
    // the code default fits; the deployment's longest allowed run does not
    const fits = await registerSweepHandler(
      deps(),
      reader(),
    )({ sweep: { id: 'deployed-short', specText: text.replace('deployed-long', 'deployed-short') } });
    expect(fits.duration.fits).toBe(true);
    const parameters = new ParameterCache({
      readAll: () =>
        Promise.resolve([
          { name: '/ariadne/config/max_duration_minutes', value: String(MAX_DURATION_MINUTES), secure: false },
        ]),
      readSecret: () => Promise.resolve(undefined),
    });
    const err = await registerSweepHandler(
      { ...deps(), parameters },
      reader(),
    )({ sweep: { id: 'deployed-long', specText: text } }).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(SweepTooLongError);
    expect(await sweepRows('deployed-long')).toBe(0);
  });

  it('a failed read leaves the request as it was, and says why', async () => {
    const failing = () => Promise.reject(Object.assign(new Error('throttled'), { name: 'TooManyRequestsException' }));
    const out = await registerSweepHandler(deps(), failing)({ sweep: { id: 'unread', specText: spec('unread') } });
    expect(out.maxConcurrency).toBe(50);
    expect(out.concurrency.note).toMatch(/not read \(TooManyRequestsException: throttled\)/);
  });
});
