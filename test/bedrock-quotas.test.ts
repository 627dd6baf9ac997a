// Bedrock's quotas from Service Quotas: read page by page through the real SDK client from the
// Service Quotas simulator (AWS JSON 1.1), matched to each model id by how it is called (on demand, geographic or
// global cross-Region profile: each has quotas of its own name, never used for another), printed by doctor
// --bedrock, and the default of a sweep's shared rate limits where neither the file nor Parameter Store sets one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetServiceQuotaCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import {
  bedrockQuotaChecks,
  listBedrockQuotas,
  modelQuotas,
  quotaScopeOf,
  rateLimitOf,
  type ServiceQuota,
} from '../bin/cli/bedrock-quotas.ts';
import { fitSweepToAccount } from '../bin/cli/sweep-fit.ts';
import { DEFAULT_SIM_QUOTAS, ServiceQuotasSim, type SimQuota } from '../simulators/service-quotas-sim.ts';
import { IamModel, accessKeyIdFor } from '../rehearsal/iam.ts';
import { RequestAuthorizer } from '../rehearsal/authorizer.ts';
import type { CfnTemplate } from '../lib/template-values.ts';
import { DEFAULT_CONFIG, experimentConfigSchema } from '../core/config/experiment-config.ts';
import { InvalidInputError } from '../core/errors.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { DEFAULT_BEDROCK_MODELS } from '../lib/ariadne-stack.ts';
import { freePort } from './support/ports.ts';

const q = (name: string, value: number, code = name): ServiceQuota => ({ name, code, value });
const SONNET = 'global.anthropic.claude-sonnet-5-5';
const HAIKU = 'global.anthropic.claude-haiku-4-5-20251001-v1:0';

describe('which quotas apply to a model id', () => {
  const quotas = [
    q('Cross-Region InvokeModel tokens per minute for Anthropic Claude Sonnet 4.6', 1_000_000),
    q('Cross-Region InvokeModel requests per minute for Anthropic Claude Sonnet 4.6', 100),
    q('Global cross-Region InvokeModel tokens per minute for Anthropic Claude Sonnet 4.6', 2_000_000),
    q('On-demand model inference tokens per minute for Anthropic Claude 3.5 Sonnet V2', 400_000),
    q('On-demand model inference requests per minute for Anthropic Claude 3.5 Sonnet V2', 50),
    q('On-demand model inference tokens per minute for Anthropic Claude 3.5 Sonnet', 300_000),
    q('Cross-region model inference tokens per minute for Anthropic Claude Haiku 4.5', 5_000_000),
    q('Model invocation max tokens per day for Anthropic Claude Sonnet 4.6', 1_440_000_000),
    q('On-demand model inference tokens per minute for Meta Llama 3.1 70B Instruct', 300_000),
  ];

  it('a base id is on demand, a geographic profile cross-Region, a global profile global', () => {
    expect(quotaScopeOf('amazon.nova-lite-v1:0')).toBe('on-demand');
    expect(quotaScopeOf('us.anthropic.claude-sonnet-4-6')).toBe('cross-region');
    expect(quotaScopeOf('eu.anthropic.claude-sonnet-4-6')).toBe('cross-region');
    expect(quotaScopeOf(SONNET)).toBe('global');
  });

  it("takes the quota of the model's own kind, by its display name, in either wording and any case", () => {
    // a requests-per-minute quota the account still lists is not a limit: Bedrock Runtime throttles by tokens alone
    expect(modelQuotas('us.anthropic.claude-sonnet-4-6', quotas)).toEqual({
      model: 'us.anthropic.claude-sonnet-4-6',
      scope: 'cross-region',
      tokensPerMinute: expect.objectContaining({ value: 1_000_000 }),
    });
    expect(rateLimitOf(modelQuotas('us.anthropic.claude-sonnet-4-6', quotas))).toEqual({
      tokens_per_minute: 1_000_000,
    });
    const global = modelQuotas('global.anthropic.claude-sonnet-4-6', quotas);
    expect(global.tokensPerMinute?.value).toBe(2_000_000);
    expect(rateLimitOf(global)).toEqual({ tokens_per_minute: 2_000_000 });
    // a date, ":0", a trailing v1 and "V2" are read from the id: V2 is another model than the first 3.5 Sonnet
    expect(modelQuotas('anthropic.claude-3-5-sonnet-20241022-v2:0', quotas).tokensPerMinute?.value).toBe(400_000);
    expect(modelQuotas('anthropic.claude-3-5-sonnet-20240620-v1:0', quotas).tokensPerMinute?.value).toBe(300_000);
    expect(modelQuotas('us.anthropic.claude-haiku-4-5-20251001-v1:0', quotas).tokensPerMinute?.value).toBe(5_000_000);
    expect(modelQuotas('meta.llama3-1-70b-instruct-v1:0', quotas).tokensPerMinute?.value).toBe(300_000);
  });

  it('never uses a quota of another kind: a global profile with only cross-Region quotas gets none', () => {
    const haiku = modelQuotas(HAIKU, quotas);
    expect(haiku.scope).toBe('global');
    expect(haiku.tokensPerMinute).toBeUndefined();
    expect(rateLimitOf(haiku)).toBeNull();
    // on demand in the Region: Sonnet 4.6 has no on-demand quota listed, only profile ones
    expect(rateLimitOf(modelQuotas('anthropic.claude-sonnet-4-6', quotas))).toBeNull();
  });
});

describe('Service Quotas through the SDK client', () => {
  let sim: ServiceQuotasSim;
  let endpoint = '';
  const client = (key = 'AKIASIM') =>
    new ServiceQuotasClient({
      region: 'eu-west-1',
      endpoint,
      credentials: { accessKeyId: key, secretAccessKey: 'sim' },
      maxAttempts: 1,
    });
  beforeAll(async () => {
    // Bedrock has hundreds of quotas: the list comes in pages of at most 100
    const filler: SimQuota[] = Array.from({ length: 230 }, (_, i) => ({
      serviceCode: 'bedrock',
      code: `L-F${i}`,
      name: `Model invocation max tokens per day for Filler Model ${i}`,
      value: 1,
    }));
    sim = new ServiceQuotasSim([...filler, ...DEFAULT_SIM_QUOTAS, { ...filler[0], serviceCode: 'lambda' }]);
    endpoint = await sim.listen();
  });
  afterAll(async () => {
    await sim.close();
  });

  it("lists every Bedrock quota, page by page, and none of another service's", async () => {
    const quotas = await listBedrockQuotas(client());
    expect(quotas).toHaveLength(230 + DEFAULT_SIM_QUOTAS.length);
    const lists = sim.requests.filter((r) => r.target === 'ServiceQuotasV20190624.ListServiceQuotas');
    expect(lists.map((r) => r.body.ServiceCode)).toEqual(['bedrock', 'bedrock', 'bedrock']);
    expect(lists[0].headers['content-type']).toBe('application/x-amz-json-1.1');
    expect(rateLimitOf(modelQuotas(SONNET, quotas))).toEqual({ tokens_per_minute: 2_000_000 });
  });

  it('GetServiceQuota by code; an unknown code is NoSuchResourceException', async () => {
    const out = await client().send(new GetServiceQuotaCommand({ ServiceCode: 'bedrock', QuotaCode: 'L-GS46T' }));
    expect(out.Quota).toMatchObject({ QuotaCode: 'L-GS46T', Value: 2_000_000 });
    await expect(
      client().send(new GetServiceQuotaCommand({ ServiceCode: 'bedrock', QuotaCode: 'L-NONE' })),
    ).rejects.toMatchObject({ name: 'NoSuchResourceException' });
  });

  it('authorizes each call as the caller: ListServiceQuotas on "*", GetServiceQuota on the quota ARN', async () => {
    const template: CfnTemplate = { Resources: {} };
    const model = new IamModel(template);
    const allow = (Action: string[], Resource: string[]) => ({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action, Resource }],
    });
    model.addPrincipal('Lister', allow(['servicequotas:ListServiceQuotas'], ['*']));
    model.addPrincipal(
      'OneQuota',
      allow(['servicequotas:GetServiceQuota'], ['arn:aws:servicequotas:*:*:bedrock/L-GS46T']),
    );
    const authorizer = new RequestAuthorizer(model);
    const guarded = new ServiceQuotasSim(undefined, { authorizer });
    const url = await guarded.listen();
    const as = (name: string) =>
      new ServiceQuotasClient({
        region: 'eu-west-1',
        endpoint: url,
        credentials: { accessKeyId: accessKeyIdFor(name), secretAccessKey: 'x' },
        maxAttempts: 1,
      });
    try {
      expect((await listBedrockQuotas(as('Lister'))).length).toBe(DEFAULT_SIM_QUOTAS.length);
      await expect(listBedrockQuotas(as('OneQuota'))).rejects.toMatchObject({ name: 'AccessDeniedException' });
      const one = await as('OneQuota').send(
        new GetServiceQuotaCommand({ ServiceCode: 'bedrock', QuotaCode: 'L-GS46T' }),
      );
      expect(one.Quota?.Value).toBe(2_000_000);
      await expect(
        as('OneQuota').send(new GetServiceQuotaCommand({ ServiceCode: 'bedrock', QuotaCode: 'L-GH45T' })),
      ).rejects.toMatchObject({ name: 'AccessDeniedException' });
      expect(authorizer.denials.map((d) => [d.principal, d.action, d.resource])).toEqual([
        ['OneQuota', 'servicequotas:ListServiceQuotas', '*'],
        ['OneQuota', 'servicequotas:GetServiceQuota', 'arn:aws:servicequotas:eu-west-1:123456789012:bedrock/L-GH45T'],
      ]);
    } finally {
      await guarded.close();
    }
  });

  it('doctor --bedrock: a line per model, its tokens-per-minute quota or what is missing', async () => {
    const checks = await bedrockQuotaChecks(
      [...DEFAULT_BEDROCK_MODELS, 'eu.anthropic.claude-sonnet-4-6'],
      'eu-west-1',
      client(),
    );
    expect(checks.map((c) => [c.check, c.ok, c.warning])).toEqual([
      [`Bedrock ${SONNET} quotas`, true, false],
      [`Bedrock ${HAIKU} quotas`, true, false],
      ['Bedrock eu.anthropic.claude-sonnet-4-6 quotas', true, false],
    ]);
    expect(checks[0].detail).toBe(
      '2,000,000 tokens/min ("Global cross-Region InvokeModel tokens per minute for Anthropic Claude Sonnet 5.5") ' +
        'in eu-west-1, called through a global cross-Region inference profile (requests per minute are not ' +
        'enforced); sweeps default their rate_limits to these',
    );
    expect(checks[2].detail).toMatch(/^1,000,000 tokens\/min \("Cross-Region InvokeModel/);
    const none = await bedrockQuotaChecks(['mistral.mistral-large-2402-v1:0'], 'eu-west-1', client());
    expect(none[0]).toMatchObject({ ok: true, warning: true, fix: expect.stringMatching(/config\.rate_limits/) });
    const unreachable = new ServiceQuotasClient({
      region: 'eu-west-1',
      endpoint: `http://127.0.0.1:${await freePort()}`,
      credentials: { accessKeyId: 'AKIASIM', secretAccessKey: 'sim' },
      maxAttempts: 1,
    });
    const skipped = await bedrockQuotaChecks([SONNET], 'eu-west-1', unreachable);
    expect(skipped).toEqual([expect.objectContaining({ check: 'Bedrock quotas', ok: true, skipped: true })]);
  });
});

describe('ariadne sweep --aws fits the sweep to the account', () => {
  const YAML = `sweep: fitted
agents:
  - { agent: frontier }
  - { agent: bedrock, model: ${SONNET} }
  - { agent: bedrock, model: ${HAIKU}, config: { rate_limits: { "bedrock:${HAIKU}": { requests_per_minute: 7 } } } }
mazes: { generators: [medium], sizes: [7], seeds: [1, 2] }
repeats: 2
max_concurrency: 30
`;
  const account = (unreserved: number) => () =>
    Promise.resolve({ concurrentExecutions: 1000, unreservedConcurrentExecutions: unreserved });
  const quotas = () => Promise.resolve(DEFAULT_SIM_QUOTAS.map((x) => ({ name: x.name, code: x.code, value: x.value })));
  const deployed = () => Promise.resolve(DEFAULT_CONFIG);

  it('caps the width, checks the length, and defaults each unset Bedrock rate limit to its quotas', async () => {
    const fit = await fitSweepToAccount(loadSweep(YAML), {
      region: 'eu-west-1',
      requested: 30,
      readAccount: account(10),
      readQuotas: quotas,
      readConfig: deployed,
    });
    expect(fit.maxConcurrency).toBe(8);
    expect(fit.lines[0]).toMatch(/^8 experiments at a time, not 30: /);
    expect(fit.lines[1]).toMatch(/^12 runs, 8 at a time: 2 after one another/);
    expect(fit.lines[2]).toMatch(
      new RegExp(`^rate limit bedrock:${SONNET.replace(/\./g, '\\.')}: 2,000,000 tokens/min shared`),
    );
    const configOf = (model: string) => fit.sweep.runs.find((r) => r.cell.model === model)!.cell.config;
    expect(configOf(SONNET).rate_limits).toEqual({
      [`bedrock:${SONNET}`]: { tokens_per_minute: 2_000_000 },
    });
    // the file's own limit is kept, not replaced or widened
    expect(configOf(HAIKU).rate_limits).toEqual({ [`bedrock:${HAIKU}`]: { requests_per_minute: 7 } });
    expect(fit.rateLimits.map((r) => r.model)).toEqual([SONNET]);
    // what is launched still passes the config schema, and the frontier runs are untouched
    for (const run of fit.sweep.runs) expect(experimentConfigSchema.safeParse(run.cell.config).success).toBe(true);
    expect(fit.sweep.runs.find((r) => r.cell.agent === 'frontier')!.cell.config).toEqual({});
    expect(fit.sweep.runs).toHaveLength(12);
  });

  it('keeps a limit Parameter Store sets, and defaults none when the parameters cannot be read', async () => {
    const withParameter = () =>
      Promise.resolve(experimentConfigSchema.parse({ rate_limits: { 'bedrock:*': { tokens_per_minute: 10_000 } } }));
    const kept = await fitSweepToAccount(loadSweep(YAML), {
      region: 'eu-west-1',
      requested: 4,
      readAccount: account(1000),
      readQuotas: quotas,
      readConfig: withParameter,
    });
    expect(kept.maxConcurrency).toBe(4);
    expect(kept.rateLimits).toEqual([]);
    expect(kept.sweep.runs.find((r) => r.cell.model === SONNET)!.cell.config).toEqual({});
    const unread = await fitSweepToAccount(loadSweep(YAML), {
      region: 'eu-west-1',
      requested: 4,
      readAccount: account(1000),
      readQuotas: quotas,
      readConfig: () => Promise.reject(Object.assign(new Error('no'), { name: 'AccessDeniedException' })),
    });
    expect(unread.lines.at(-1)).toMatch(/none defaulted, the deployed parameters could not be read/);
    expect(unread.sweep.runs.find((r) => r.cell.model === SONNET)!.cell.config).toEqual({});
  });

  it('refuses a sweep that cannot end within one Standard execution (exit 2: InvalidInputError)', async () => {
    const long = YAML.replace(
      'max_concurrency: 30',
      'max_concurrency: 30\nconfig: { max_duration_minutes: 10080 }',
    ).replace('seeds: [1, 2]', `seeds: [${Array.from({ length: 100 }, (_, i) => i).join(', ')}]`);
    const err = await fitSweepToAccount(loadSweep(long), {
      region: 'eu-west-1',
      requested: 30,
      readAccount: account(3),
      readQuotas: quotas,
      readConfig: deployed,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidInputError);
    expect((err as Error).message).toMatch(/cannot end within one Step Functions execution: 600 runs, 1 at a time/);
  });
});
