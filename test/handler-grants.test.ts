// What each Lambda handler calls must match what its function is granted (test/cdk-stack.test.ts checks the
// grants): no turn function may read the settings; the Ollama and OpenAI ones may read their own key only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExperimentHandler } from '../functions/start-experiment.ts';
import { runTurnHandler } from '../functions/run-turn.ts';
import type { HandlerDeps } from '../functions/deps.ts';
import type { ParameterCache } from '../core/config/parameters.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { baselineAgents } from '../core/providers/baselines.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});

/** Parameter Store as a role with no grant meets it: every read is denied, and each one is noted. */
function deniedParameters(reads: string[]): ParameterCache {
  const deny = (action: string, what: string) => {
    reads.push(what);
    return Promise.reject(
      Object.assign(new Error(`not authorized to perform ${action}`), { name: 'AccessDeniedException' }),
    );
  };
  return {
    get: () => deny('ssm:GetParametersByPath', 'settings'),
    secret: (name: string) => deny('ssm:GetParameter', name),
  } as unknown as ParameterCache;
}

describe('the turn functions', () => {
  it.each(['baseline', 'bedrock'] as const)('a %s turn reads nothing from Parameter Store', async (provider) => {
    const deps: HandlerDeps = { store: new PgStore(db), agents: baselineAgents, now: () => new Date() };
    const loop = await startExperimentHandler(deps)({
      request: { agent: 'frontier', maze: { generator: 'medium', size: 11, seed: 1 } },
      executionArn: `arn:aws:states:us-east-1:123456789012:execution:AriadneExperiments:grants-${provider}`,
    });
    const reads: string[] = [];
    const turn = await runTurnHandler({ ...deps, parameters: deniedParameters(reads) })({
      ...loop,
      llmProvider: provider,
    });
    expect(turn).toMatchObject({ experimentId: loop.experimentId, turnNumber: 1, replayed: false });
    expect(turn.actionsExecuted).toBeGreaterThan(0);
    expect(reads).toEqual([]);
  });

  it.each([
    ['ollama', 'ollama_api_key'],
    ['openai', 'openai_api_key'],
  ] as const)('an %s turn reads its own key only, so a denied read fails its turn', async (provider, key) => {
    const deps: HandlerDeps = { store: new PgStore(db), agents: baselineAgents, now: () => new Date() };
    const loop = await startExperimentHandler(deps)({
      request: { agent: 'frontier', maze: { generator: 'medium', size: 11, seed: 1 } },
      executionArn: `arn:aws:states:us-east-1:123456789012:execution:AriadneExperiments:grants-${provider}`,
    });
    const reads: string[] = [];
    await expect(
      runTurnHandler({ ...deps, parameters: deniedParameters(reads) })({ ...loop, llmProvider: provider }),
    ).rejects.toThrow(/ssm:GetParameter$/);
    expect(reads).toEqual([key]);
  });
});
