// A new AWS account's first Claude call, a retired model, a base id that needs an inference profile: over the
// Bedrock simulator, whose account and model catalog (simulators/bedrock-catalog.ts) answer as AWS's pages and
// users' reports say Bedrock does. The CLI refuses before anything is written (exit 2 for the model id, 3 for the
// account), naming the fix; an experiment that meets the same refusal in a turn ends at once with the fix as its
// reason, not retried as a provider fault.
import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BedrockSim } from '../simulators/bedrock-sim.ts';
import { newSimAccount, setUpSimAccount } from '../simulators/bedrock-catalog.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { STATES } from '../core/machine/states.ts';
import { diagnoseBedrockAccess } from '../core/providers/llm/bedrock-access.ts';
import { DEFAULT_BEDROCK_MODELS } from '../lib/ariadne-stack.ts';
import { lookupModel, MODEL_TABLE } from '../core/config/model-table.ts';
import { tableCounts, testDatabase, type TestDatabase } from './support/db.ts';
import { cli } from './support/cli.ts';
import { FAST_RETRY } from './support/provider-sims.ts';

const SONNET = 'global.anthropic.claude-sonnet-4-6';
const MAZE = { generator: 'medium', size: 15, seed: 3 };
const CREDENTIALS = { AWS_ACCESS_KEY_ID: 'researcher', AWS_SECRET_ACCESS_KEY: 'sim', AWS_REGION: 'us-east-1' };

let db: TestDatabase;
const sim = new BedrockSim();
let url = '';
beforeAll(async () => {
  db = await testDatabase();
  url = await sim.listen();
});
afterAll(async () => {
  await sim.close();
  await db.drop();
});
beforeEach(() => {
  sim.account = setUpSimAccount();
  sim.requests.length = 0;
});
const { ariadne } = cli(() => db);
const converses = () => sim.requests.filter((r) => r.path.endsWith('/converse'));

describe('the defaults', () => {
  it('are Active models through global inference profiles, each priced and windowed by the model table', () => {
    expect(DEFAULT_BEDROCK_MODELS.every((m) => m.startsWith('global.'))).toBe(true);
    for (const m of DEFAULT_BEDROCK_MODELS)
      expect(lookupModel(MODEL_TABLE, m)).toMatchObject({ status: 'active', context_window: expect.any(Number) });
  });
});

describe('ariadne run: the Bedrock preflight, before anything is written', () => {
  const run = (model: string, env: Record<string, string> = {}) =>
    ariadne(['run', '--provider', 'bedrock', '--model', model, '--bedrock-endpoint', url, '--maze', 'medium'], {
      ...CREDENTIALS,
      ...env,
    });

  it.each([
    ['anthropic.claude-3-5-sonnet-20240620-v1:0', 2, /reached the end of its life.*choose an Active model/],
    ['us.anthropic.claude-3-7-sonnet-20250219-v1:0', 2, /reached the end of its life.*choose an Active model/],
    ['anthropic.claude-sonnet-4-6', 2, /on-demand throughput.*use global\.anthropic\.claude-sonnet-4-6/],
    ['anthropic.claude-nonesuch-v9', 2, /model identifier is invalid.*check the id/],
  ])('%s exits %i naming the fix', async (model, code, message) => {
    const before = await tableCounts(db);
    const r = await run(model);
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(code);
    expect(await tableCounts(db)).toEqual(before);
  });

  it('a new account: the use case form first, then the Marketplace subscription, each exit 3', async () => {
    const before = await tableCounts(db);
    sim.account = newSimAccount(() => false);
    const form = await run(SONNET);
    expect(form.code).toBe(3);
    expect(form.stderr).toMatch(/use case details have not been submitted.*submit the form/);
    sim.account.useCaseSubmitted = true;
    const market = await run(SONNET);
    expect(market.code).toBe(3);
    expect(market.stderr).toMatch(/aws-marketplace:Subscribe.*doctor --aws --bedrock` once as an identity allowed/);
    expect(await tableCounts(db)).toEqual(before);
  });

  it('a Legacy model the account has not used lately exits 2; an unreachable Bedrock exits 3', async () => {
    sim.account.inactiveOnLegacy = true;
    const sonnet45 = 'global.anthropic.claude-sonnet-4-5-20250929-v1:0';
    if (!sim.models.includes(sonnet45)) sim.models.push(sonnet45);
    const legacy = await run(sonnet45);
    expect(legacy.code).toBe(2);
    expect(legacy.stderr).toMatch(/marked by provider as Legacy.*choose an Active model/);
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    // no --bedrock-endpoint: the SDK's own endpoint, here one that refuses connections
    const down = await ariadne(['run', '--provider', 'bedrock', '--model', SONNET, '--maze', 'medium'], {
      ...CREDENTIALS,
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: `http://127.0.0.1:${port}`,
    });
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(/cannot reach Bedrock in us-east-1 \(ECONNREFUSED\)/);
  });

  it('an account set up: the run goes ahead after one one-token call', async () => {
    const r = await run(SONNET, {});
    expect(r.code).toBe(0);
    expect(converses()[0].body.inferenceConfig).toEqual({ maxTokens: 1 });
    expect(converses().length).toBeGreaterThan(1);
  });
});

describe('an experiment that meets the refusal in a turn (the Lambda path)', () => {
  const run = () =>
    runLocalExperiment(
      {
        agent: 'bedrock',
        model: SONNET,
        maze: MAZE,
        config: { bedrock: { endpoint: url, region: 'us-east-1' }, retry: FAST_RETRY },
      },
      { db, retryIntervals: { [STATES.InvokeBedrockAgent]: 0 } },
    );

  it('ends failed at once with the fix as its reason: one call, no retry', async () => {
    process.env.AWS_ACCESS_KEY_ID = 'lambda-role';
    process.env.AWS_SECRET_ACCESS_KEY = 'sim';
    sim.account = newSimAccount((key) => key === 'admin');
    sim.account.useCaseSubmitted = true;
    const failed = await run().then(
      () => null,
      (err: unknown) => err as { summary?: { status: string; failure_reason: string } },
    );
    expect(failed?.summary?.status).toBe('failed');
    expect(failed?.summary?.failure_reason).toMatch(
      /ProviderPermanentError: .*AccessDeniedException: Model access is denied .*\(marketplace; fix: .*doctor --aws/,
    );
    expect(converses()).toHaveLength(1);
  });

  it('runs once an administrator has made the first call (the subscription serves every role)', async () => {
    sim.account = newSimAccount((key) => key === 'admin');
    sim.account.useCaseSubmitted = true;
    process.env.AWS_ACCESS_KEY_ID = 'admin';
    const { BedrockRuntimeClient, ConverseCommand } = await import('@aws-sdk/client-bedrock-runtime');
    const client = new BedrockRuntimeClient({ region: 'us-east-1', endpoint: url });
    await client.send(
      new ConverseCommand({ modelId: SONNET, messages: [{ role: 'user', content: [{ text: 'ready?' }] }] }),
    );
    client.destroy();
    process.env.AWS_ACCESS_KEY_ID = 'lambda-role';
    const { summary } = await run();
    expect(summary?.status).toBe('completed');
  });
});

describe('diagnoseBedrockAccess', () => {
  const ctx = { model: SONNET, region: 'us-east-1', command: 'ariadne' };
  it('leaves errors that are not about access alone', () => {
    expect(diagnoseBedrockAccess({ name: 'ThrottlingException', message: 'Too many requests' }, ctx)).toBeNull();
    expect(diagnoseBedrockAccess({ name: 'InternalServerException', message: 'x' }, ctx)).toBeNull();
  });
  it('reads a plain IAM denial as a missing grant, naming the context that grants it', () => {
    const d = diagnoseBedrockAccess({ name: 'AccessDeniedException', message: 'not authorized to perform' }, ctx);
    expect(d).toMatchObject({ problem: 'not-granted', fix: expect.stringContaining('-c bedrockModelIds=') });
  });
});
