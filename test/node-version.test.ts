// Node 20 is past end of life: the CLI says so in one line, once a day, and the AWS SDK's multi-line
// NodeVersionSupportWarning is gone. The process tests run the CLI the way a user does, with neither
// ARIADNE_NO_NODE_WARNING nor the SDK's switch set (vitest.config.ts sets both for the other suites), each with a
// cache directory of its own (where the day's stamp is), and hold on any Node: on 22 or newer they check that
// nothing is said.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeVersionNotice, noticeStampFile, warnIfOldNode } from '../bin/cli/node-version.ts';
import { BedrockSim } from '../simulators/bedrock-sim.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { nodeProcess, outputOf } from './support/cli.ts';

const OLD_NODE = Number(process.versions.node.split('.')[0]) < 22;
const EOL_LINE = /^ariadne: Node v[\d.]+ reached end of life in April 2026; .*$/gm;
const SDK_WARNING = 'NodeVersionSupportWarning';

describe('nodeVersionNotice', () => {
  it.each(['v22.0.0', 'v22.23.3', 'v24.11.1', 'v25.2.0', 'v30.0.0'])('%s: nothing to say', (v) => {
    expect(nodeVersionNotice(v)).toBeUndefined();
  });

  it.each(['v20.19.0', 'v20.20.2', 'v20.99.0'])('%s: end of life, still works, 22 recommended', (v) => {
    expect(nodeVersionNotice(v)).toBe(
      `ariadne: Node ${v} reached end of life in April 2026; Ariadne works on it, ` +
        'but Node 22 or newer is recommended (nvm install 22).',
    );
  });

  it.each(['v20.11.0', 'v20.18.3', 'v21.7.3', 'v18.20.8', 'v16.0.0'])('%s: not supported', (v) => {
    expect(nodeVersionNotice(v)).toBe(
      `ariadne: Node ${v} is not supported (Ariadne needs 20.19 or a later 20.x, or 22 or newer); ` +
        'Node 22 or newer is recommended (nvm install 22).',
    );
  });

  it.each(['', 'v', 'twenty', 'v20', '20.x.1'])('%j: unreadable, nothing to say', (v) => {
    expect(nodeVersionNotice(v)).toBeUndefined();
  });
});

const caches = mkdtempSync(join(tmpdir(), 'ariadne-node-notice-'));
afterAll(() => rmSync(caches, { recursive: true, force: true }));
/** A cache directory no process has used yet. */
const freshCache = () => mkdtempSync(join(caches, 'cache-'));

describe('warnIfOldNode', () => {
  const NOON = new Date(2026, 10, 25, 12);
  const run = (version: string, env: NodeJS.ProcessEnv, stamp = join(freshCache(), 'stamp'), today = NOON) => {
    const lines: string[] = [];
    warnIfOldNode(version, env, (line) => lines.push(line), stamp, today);
    return lines;
  };

  it('on Node 20: one line, and the SDK warning switched off', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(run('v20.20.2', env)).toEqual([`${nodeVersionNotice('v20.20.2')}\n`]);
    expect(env).toEqual({ AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
  });

  it('on Node 22 or newer: no line, the environment untouched', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(run('v22.23.3', env)).toEqual([]);
    expect(run('v24.11.1', env)).toEqual([]);
    expect(env).toEqual({});
  });

  it('ARIADNE_NO_NODE_WARNING silences the line but not the switch; 0 or empty do not silence', () => {
    const env: NodeJS.ProcessEnv = { ARIADNE_NO_NODE_WARNING: '1' };
    expect(run('v20.20.2', env)).toEqual([]);
    expect(env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED).toBe('true');
    expect(run('v20.20.2', { ARIADNE_NO_NODE_WARNING: '0' })).toHaveLength(1);
    expect(run('v20.20.2', { ARIADNE_NO_NODE_WARNING: '' })).toHaveLength(1);
  });

  it('once a day: again the next day, or the day another Node runs it', () => {
    const stamp = join(freshCache(), 'ariadne', 'node-version-notice');
    const line = [`${nodeVersionNotice('v20.20.2')}\n`];
    expect(run('v20.20.2', {}, stamp)).toEqual(line);
    expect(run('v20.20.2', {}, stamp, new Date(2026, 10, 25, 23, 59))).toEqual([]);
    const env: NodeJS.ProcessEnv = {};
    expect(run('v20.20.2', env, stamp)).toEqual([]);
    expect(env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED).toBe('true'); // the SDK is silenced every time
    expect(run('v20.20.2', {}, stamp, new Date(2026, 10, 26, 0, 1))).toEqual(line);
    expect(run('v20.19.0', {}, stamp, new Date(2026, 10, 26, 0, 2))).toEqual([`${nodeVersionNotice('v20.19.0')}\n`]);
  });

  it('a stamp that cannot be written: the line every time, as without one', () => {
    // under a file, not a directory: no user, root included, can create it
    const blocker = join(freshCache(), 'a-file');
    writeFileSync(blocker, '');
    const stamp = join(blocker, 'ariadne', 'node-version-notice');
    expect(run('v20.20.2', {}, stamp)).toHaveLength(1);
    expect(run('v20.20.2', {}, stamp)).toHaveLength(1);
  });

  it('silenced, the stamp is left alone: the line still comes once the switch is gone', () => {
    const stamp = join(freshCache(), 'stamp');
    expect(run('v20.20.2', { ARIADNE_NO_NODE_WARNING: '1' }, stamp)).toEqual([]);
    expect(existsSync(stamp)).toBe(false);
    expect(run('v20.20.2', {}, stamp)).toHaveLength(1);
  });

  it("the stamp is in the user's cache directory: XDG_CACHE_HOME, else ~/.cache", () => {
    expect(noticeStampFile({ XDG_CACHE_HOME: '/c' })).toBe(join('/c', 'ariadne', 'node-version-notice'));
    expect(noticeStampFile({})).toMatch(/[/\\]\.cache[/\\]ariadne[/\\]node-version-notice$/);
  });

  it("a user's own setting of the SDK switch is kept", () => {
    const env: NodeJS.ProcessEnv = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'false' };
    run('v20.20.2', env);
    expect(env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED).toBe('false');
  });
});

describe(`the real CLI on this Node (${process.version})`, () => {
  let db: TestDatabase;
  const bedrock = new BedrockSim();
  let bedrockUrl = '';
  let closedPort = 0;
  beforeAll(async () => {
    db = await testDatabase();
    bedrockUrl = await bedrock.listen();
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    closedPort = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
  });
  afterAll(async () => {
    await bedrock.close();
    await db.drop();
  });

  /** A process as a user starts it: neither switch set, static credentials so SDK clients are built and called. */
  const node = (args: string[], extra: Record<string, string | undefined> = {}) =>
    outputOf(
      // Async, not spawnSync: the Bedrock simulator answers from this process.
      nodeProcess(args, {
        DATABASE_URL: db.url,
        DATABASE_SCHEMA: db.schema,
        AWS_ACCESS_KEY_ID: 'x',
        AWS_SECRET_ACCESS_KEY: 'x',
        ARIADNE_NO_NODE_WARNING: undefined,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: undefined,
        XDG_CACHE_HOME: freshCache(),
        ...extra,
      }),
    );
  // the installed entry, as a user runs it (cli-startup.test.ts checks the sources answer alike)
  const ariadne = (args: string[], extra?: Record<string, string | undefined>) =>
    node(['bin/ariadne.js', ...args], extra);
  const status = ['status', 'arn:aws:states:us-east-1:123456789012:execution:m:n', '--endpoint'];

  it('a bare SDK client here shows the SDK warning on Node < 22: its absence below is meaningful', async () => {
    const r = await node([
      '--input-type=module',
      '-e',
      "import { SFNClient } from '@aws-sdk/client-sfn'; new SFNClient({ region: 'us-east-1' });",
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr.includes(SDK_WARNING)).toBe(OLD_NODE);
  });

  it('status through the SFN client: the line once on Node < 22, never the SDK warning', async () => {
    const r = await ariadne([...status, `http://127.0.0.1:${closedPort}`]);
    expect(r.stderr).toMatch(/cannot reach the service \(ECONNREFUSED\)/); // the client was built and called
    expect(r.code).toBe(3);
    expect(r.stderr).not.toContain(SDK_WARNING);
    expect(r.stderr.match(EOL_LINE) ?? []).toEqual(OLD_NODE ? [nodeVersionNotice(process.version)] : []);
    if (!OLD_NODE) expect(r.stderr).not.toMatch(/Node v/);
  });

  it('run --json through the Bedrock client: stdout is the JSON alone, stderr the line at most', async () => {
    const r = await ariadne([
      'run',
      '--provider',
      'bedrock',
      '--model',
      'global.anthropic.claude-haiku-4-5-20251001-v1:0',
      '--bedrock-endpoint',
      bedrockUrl,
      '--maze',
      'light',
      '--size',
      '9',
      '--seed',
      '1',
      '--max-moves',
      '30',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ agent: 'bedrock', maze_width: 9 });
    expect(bedrock.requests.length).toBeGreaterThan(0);
    expect(r.stderr).toBe(OLD_NODE ? `${nodeVersionNotice(process.version)}\n` : '');
  });

  it('the same day again: no line, and still not the SDK warning; --version and --help never say it', async () => {
    const cache = freshCache();
    const first = await ariadne([...status, `http://127.0.0.1:${closedPort}`], { XDG_CACHE_HOME: cache });
    expect(first.stderr.match(EOL_LINE) ?? []).toHaveLength(OLD_NODE ? 1 : 0);
    const again = await ariadne([...status, `http://127.0.0.1:${closedPort}`], { XDG_CACHE_HOME: cache });
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/cannot reach the service \(ECONNREFUSED\)/);
    expect(again.stderr).not.toContain(SDK_WARNING);
    expect(again.stderr).not.toMatch(/Node v/);
    if (OLD_NODE)
      expect(readFileSync(join(cache, 'ariadne', 'node-version-notice'), 'utf8')).toContain(process.version);
    for (const args of [['--version'], ['--help'], ['run', '--help']]) {
      const r = await ariadne(args);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
    }
  });

  it('ARIADNE_NO_NODE_WARNING=1: neither the line nor the SDK warning', async () => {
    const r = await ariadne([...status, `http://127.0.0.1:${closedPort}`], { ARIADNE_NO_NODE_WARNING: '1' });
    expect(r.code).toBe(3);
    expect(r.stderr).not.toContain(SDK_WARNING);
    expect(r.stderr).not.toMatch(/Node v/);
  });
});
