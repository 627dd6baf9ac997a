// Parameter Store through the real @aws-sdk/client-ssm against a local server
// speaking the SSM JSON protocol, and the same names from a local file.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { SSMClient } from '@aws-sdk/client-ssm';
import { ParameterCache, resolveParameters } from '../core/config/parameters.ts';
import { ssmSource } from '../core/config/ssm-source.ts';
import { fileSource } from '../core/config/file-source.ts';
import { SsmSim, type SimParameter } from '../simulators/ssm-sim.ts';
import { parametersFile } from './support/parameters-file.ts';

const sim = new SsmSim();
let client: SSMClient;
beforeAll(async () => {
  const endpoint = await sim.listen();
  client = new SSMClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'sim', secretAccessKey: 'sim' },
    maxAttempts: 1,
  });
});
afterAll(async () => {
  client.destroy();
  await sim.close();
});
beforeEach(() => {
  sim.requests.length = 0;
});

const SECRET = 'ollama-key-do-not-leak-7731';
const many: SimParameter[] = [
  { name: '/ariadne/config/max_moves', value: '5000' },
  { name: '/ariadne/config/vision_range', value: '4' },
  { name: '/ariadne/config/see_through', value: 'false' },
  { name: '/ariadne/config/ollama/num_ctx', value: '16384' },
  { name: '/ariadne/config/prices', value: '{"my-model": {"input_per_mtok": 1, "output_per_mtok": 2}}' },
  ...Array.from({ length: 19 }, (_, i) => ({
    name: `/ariadne/prompts/study${i}/v1`,
    value: `Prompt number ${i}: find the goal.`,
  })),
  { name: '/other-app/config/max_moves', value: '1' },
  { name: '/ariadne-secrets/ollama_api_key', value: SECRET, type: 'SecureString' },
];
const KEY = many.at(-1)!;

describe('Parameter Store over the SSM JSON protocol', () => {
  it('reads a 3-page GetParametersByPath whole, recursively, without decryption and without the keys', async () => {
    sim.parameters = many;
    const raw = await ssmSource(client).readAll('/ariadne');
    expect(raw).toHaveLength(24);
    expect(raw.map((p) => p.value)).not.toContain(SECRET);
    expect(sim.requests).toHaveLength(3);
    expect(sim.requests.map((r) => r.target)).toEqual(Array(3).fill('AmazonSSM.GetParametersByPath'));
    expect(sim.requests.map((r) => r.body.NextToken ?? null)).toEqual([null, expect.any(String), expect.any(String)]);
    for (const r of sim.requests) expect(r.body).toMatchObject({ Path: '/ariadne', Recursive: true });
    expect(sim.requests.some((r) => r.body.WithDecryption)).toBe(false);
    const resolved = resolveParameters('/ariadne', raw);
    expect(resolved.config).toMatchObject({
      max_moves: 5000,
      vision_range: 4,
      see_through: false,
      ollama: { num_ctx: 16384 },
    });
    expect(Object.keys(resolved.prompts)).toHaveLength(19);
    expect(resolved.prompts['study3/v1']).toBe('Prompt number 3: find the goal.');
    expect(JSON.stringify(resolved)).not.toContain(SECRET);
  });

  it('reads a key alone, decrypted, by its own name, kept for the TTL; a missing key is undefined', async () => {
    sim.parameters = many;
    let clock = 0;
    const cache = new ParameterCache(ssmSource(client), '/ariadne', 60_000, () => clock);
    expect(await cache.secret('ollama_api_key')).toBe(SECRET);
    expect(await cache.secret('ollama_api_key')).toBe(SECRET);
    expect(await cache.secret('openai_api_key')).toBeUndefined();
    expect(sim.requests.map((r) => [r.target, r.body.Name, r.body.WithDecryption])).toEqual([
      ['AmazonSSM.GetParameter', '/ariadne-secrets/ollama_api_key', true],
      ['AmazonSSM.GetParameter', '/ariadne-secrets/openai_api_key', true],
    ]);
    clock = 60_001;
    await cache.secret('ollama_api_key');
    expect(sim.requests).toHaveLength(3);
  });

  it('a key left under the settings is refused, naming where it moved and how', async () => {
    sim.parameters = [
      ...many.slice(0, 3),
      { name: '/ariadne/secrets/openai_api_key', value: SECRET, type: 'SecureString' },
    ];
    const err = await new ParameterCache(ssmSource(client)).get().catch((e) => e);
    expect(err.name).toBe('InvalidParameterError');
    expect(err.parameter).toBe('/ariadne/secrets/openai_api_key');
    expect(err.message).toMatch(
      /move it to \/ariadne-secrets\/openai_api_key \(on AWS: ariadne secret set openai_api_key/,
    );
    expect(err.message).not.toContain(SECRET);
  });

  it('within the TTL, 50 invocations make one call; after it, one more', async () => {
    sim.parameters = many.slice(0, 5);
    let clock = 0;
    const cache = new ParameterCache(ssmSource(client), '/ariadne', 60_000, () => clock);
    const all = await Promise.all(Array.from({ length: 50 }, () => cache.get()));
    expect(new Set(all).size).toBe(1);
    expect(sim.requests).toHaveLength(1);
    clock = 60_001;
    await cache.get();
    expect(sim.requests).toHaveLength(2);
  });

  it.each([
    ['/ariadne/config/max_moves', '-5', /parameter \/ariadne\/config\/max_moves: .*(got "-5")/],
    ['/ariadne/config/ollama/num_ctx', 'lots', /parameter \/ariadne\/config\/ollama\/num_ctx: .*(got "lots")/],
    ['/ariadne/config/success_rule', 'touched', /parameter \/ariadne\/config\/success_rule: .*(got "touched")/],
    ['/ariadne/config/colour', 'blue', /parameter \/ariadne\/config\/colour: .*Unrecognized key/],
    ['/ariadne/limits/max_moves', '5', /\/ariadne\/limits\/max_moves is not a known Ariadne parameter/],
  ])('rejects %s = %s naming the parameter', async (name, value, message) => {
    sim.parameters = [{ name, value }, KEY];
    const cache = new ParameterCache(ssmSource(client));
    const err = await cache.get().catch((e) => e);
    expect(err.name).toBe('InvalidParameterError');
    expect(err.parameter).toBe(name);
    expect(err.message).toMatch(message);
  });

  it('a key is requested with decryption and appears in no log, error or config', async () => {
    const logged: string[] = [];
    const spies = [
      vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
        logged.push(String(s));
        return true;
      }),
      vi.spyOn(process.stderr, 'write').mockImplementation((s) => {
        logged.push(String(s));
        return true;
      }),
      ...(['log', 'info', 'warn', 'error', 'debug'] as const).map((m) =>
        vi.spyOn(console, m).mockImplementation((...a) => {
          logged.push(a.join(' '));
        }),
      ),
    ];
    try {
      sim.parameters = [KEY, { name: '/ariadne/config/max_moves', value: '-1' }];
      const cache = new ParameterCache(ssmSource(client));
      const err = await cache.get().catch((e) => e);
      expect(err.name).toBe('InvalidParameterError');
      expect(err.message).not.toContain(SECRET);
      expect(await cache.secret('ollama_api_key')).toBe(SECRET);
      sim.parameters = [{ name: '/ariadne/config/ollama/host', value: SECRET, type: 'SecureString' }];
      const misplaced = await new ParameterCache(ssmSource(client)).get().catch((e) => e);
      expect(misplaced.message).toMatch(/SecureString among the settings; keep keys under \/ariadne-secrets\//);
      expect(misplaced.message).not.toContain(SECRET);
      sim.parameters = [many[0], KEY];
      const ok = await new ParameterCache(ssmSource(client)).get();
      expect(JSON.stringify(ok.config)).not.toContain(SECRET);
    } finally {
      spies.forEach((s) => s.mockRestore());
    }
    const keyReads = sim.requests.filter((r) => r.target === 'AmazonSSM.GetParameter');
    expect(keyReads.map((r) => r.body.WithDecryption)).toEqual([true]);
    expect(logged.join('\n')).not.toContain(SECRET);
  });
});

describe('the same names from a local file', () => {
  it('reads YAML with multi-line prompts, and the keys beside the settings, as on AWS', async () => {
    const file = parametersFile([
      '/ariadne/config/max_moves: 2000',
      '/ariadne/config/bedrock/region: eu-west-1',
      '/ariadne/prompts/careful/v2: |',
      '  Walk carefully.',
      '  Avoid walls.',
      '/ariadne-secrets/ollama_api_key: local-key',
      '/not-ours/x: 1',
    ]);
    const cache = new ParameterCache(fileSource(file));
    const resolved = await cache.get();
    expect(resolved.config).toEqual({ max_moves: 2000, bedrock: { region: 'eu-west-1' } });
    expect(resolved.prompts['careful/v2']).toBe('Walk carefully.\nAvoid walls.\n');
    expect(await cache.secret('ollama_api_key')).toBe('local-key');
    expect(await cache.secret('openai_api_key')).toBeUndefined();
    const old = parametersFile(['/ariadne/secrets/ollama_api_key: local-key']);
    const err = await new ParameterCache(fileSource(old)).get().catch((e) => e);
    expect(err.message).toMatch(/move it to \/ariadne-secrets\/ollama_api_key .*locally: rename the key/);
  });
});
