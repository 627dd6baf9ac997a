// ariadne secret set: the key from standard input to a SecureString beside the settings, through the real
// @aws-sdk/client-ssm against the SSM simulator; never on the command line, never echoed.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SsmSim } from '../simulators/ssm-sim.ts';
import { ariadneProcess, outputOf } from './support/cli.ts';
import { readHidden } from '../bin/cli/secret-input.ts';

const sim = new SsmSim([{ name: '/ariadne/config/max_moves', value: '5000' }]);
let endpoint = '';
beforeAll(async () => {
  endpoint = await sim.listen();
});
afterAll(() => sim.close());

const KEY = 'sk-test-do-not-echo-4417';

async function secretSet(args: string[], input: string) {
  const child = ariadneProcess(['secret', 'set', ...args, '--endpoint', endpoint, '--region', 'eu-west-1'], {
    AWS_ACCESS_KEY_ID: 'sim',
    AWS_SECRET_ACCESS_KEY: 'sim',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
  child.stdin.end(input);
  return outputOf(child);
}

describe('ariadne secret set', () => {
  it('stores the piped key as a SecureString under PREFIX-secrets, again as a new version', async () => {
    const first = await secretSet(['openai_api_key'], `${KEY}\n`);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/stored \/ariadne-secrets\/openai_api_key \(SecureString, version 1\)/);
    expect(first.stdout).toMatch(/only InvokeOpenAIAgent may read it/);
    const put = sim.requests.filter((r) => r.target === 'AmazonSSM.PutParameter');
    expect(put.map((r) => r.body)).toEqual([
      { Name: '/ariadne-secrets/openai_api_key', Value: KEY, Type: 'SecureString', Overwrite: true },
    ]);
    const again = await secretSet(['openai_api_key', '--prefix', '/ariadne', '--json'], 'sk-rotated');
    expect(JSON.parse(again.stdout)).toEqual({
      parameter: '/ariadne-secrets/openai_api_key',
      version: 2,
      read_by: 'InvokeOpenAIAgent',
    });
    expect(sim.parameters.find((p) => p.name === '/ariadne-secrets/openai_api_key')).toMatchObject({
      value: 'sk-rotated',
      type: 'SecureString',
    });
    expect(`${first.stdout}${first.stderr}`).not.toContain(KEY);
  });

  it('refuses an unknown name and an empty value, storing nothing', async () => {
    const before = sim.parameters.length;
    const unknown = await secretSet(['aws_secret'], KEY);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/value 'aws_secret' is invalid.*ollama_api_key, openai_api_key/s);
    const empty = await secretSet(['ollama_api_key'], '\n');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/no value for ollama_api_key was given: pipe it in/);
    expect(sim.parameters.length).toBe(before);
  });
});

describe('the hidden prompt', () => {
  /** A terminal's standard input: raw mode switched as readHidden asks. */
  function fakeTerminal() {
    const stream = Object.assign(new PassThrough(), { isTTY: true, modes: [] as boolean[] });
    Object.assign(stream, { setRawMode: (on: boolean) => stream.modes.push(on) });
    vi.spyOn(process, 'stdin', 'get').mockReturnValue(stream as never);
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => written.push(String(s)) > 0);
    return { stream, written };
  }

  it('reads one line in raw mode, erases with backspace, echoes nothing of it', async () => {
    const { stream, written } = fakeTerminal();
    const value = readHidden('key (not shown): ');
    stream.write('sk-abx\u007fc');
    stream.write('\r');
    expect(await value).toBe('sk-abc');
    expect(stream.modes).toEqual([true, false]);
    expect(written.join('')).toBe('key (not shown): \n');
    vi.restoreAllMocks();
  });

  it('Ctrl-C gives up with nothing stored', async () => {
    const { stream } = fakeTerminal();
    const value = readHidden('key: ');
    stream.write('sk-\u0003');
    await expect(value).rejects.toThrow(/no value was entered: nothing was stored/);
    expect(stream.modes).toEqual([true, false]);
    vi.restoreAllMocks();
  });
});

describe('ariadne secret', () => {
  // the hint's command is the one this user types: npm's script in a checkout, the installed command otherwise
  it.each([
    [{ npm_lifecycle_event: 'ariadne', npm_package_name: 'ariadne' }, 'npm run ariadne -- secret set NAME'],
    [{ npm_lifecycle_event: '', npm_package_name: '' }, 'ariadne secret set NAME'],
  ])('with %j the hint says %s', async (env, hint) => {
    const r = await outputOf(ariadneProcess(['secret'], env));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^set one with: ${hint} \\(`, 'm'));
  });
});
