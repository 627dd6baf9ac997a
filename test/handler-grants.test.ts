// What each Lambda handler calls must match what its function is granted (test/cdk-stack.test.ts checks the
// grants): the baseline turn function has no SSM access, so its handler must not read Parameter Store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExperimentHandler } from '../lambdas/handlers/start-experiment.ts';
import { runTurnHandler } from '../lambdas/handlers/run-turn.ts';
import type { HandlerDeps } from '../lambdas/handlers/deps.ts';
import type { ParameterCache } from '../lambdas/config/parameters.ts';
import { PgStore } from '../lambdas/store/pg-store.ts';
import { baselineAgents } from '../lambdas/providers/baselines.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});

/** Parameter Store as the baseline function's role meets it: every read is denied. */
const denied = {
  get: () =>
    Promise.reject(
      Object.assign(new Error('not authorized to perform ssm:GetParametersByPath'), {
        name: 'AccessDeniedException',
      }),
    ),
} as unknown as ParameterCache;

describe('the baseline turn function', () => {
  it('runs a turn without reading Parameter Store (its role may not)', async () => {
    const deps: HandlerDeps = { store: new PgStore(db), agents: baselineAgents, now: () => new Date() };
    const loop = await startExperimentHandler(deps)({
      request: { agent: 'frontier', maze: { generator: 'medium', size: 11, seed: 1 } },
      executionArn: 'arn:aws:states:us-east-1:123456789012:execution:AriadneExperiments:grants-1',
    });
    const turn = await runTurnHandler({ ...deps, parameters: denied })(loop);
    expect(turn).toMatchObject({ experimentId: loop.experimentId, turnNumber: 1, replayed: false });
    expect(turn.actionsExecuted).toBeGreaterThan(0);
  });

  it('a model agent still reads them (its secrets), so a denied read fails its turn', async () => {
    const deps: HandlerDeps = { store: new PgStore(db), agents: baselineAgents, now: () => new Date() };
    const loop = await startExperimentHandler(deps)({
      request: { agent: 'frontier', maze: { generator: 'medium', size: 11, seed: 1 } },
      executionArn: 'arn:aws:states:us-east-1:123456789012:execution:AriadneExperiments:grants-2',
    });
    await expect(runTurnHandler({ ...deps, parameters: denied })({ ...loop, llmProvider: 'ollama' })).rejects.toThrow(
      /ssm:GetParametersByPath/,
    );
  });
});
