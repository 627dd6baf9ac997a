// Every environment variable is read through core/config/environment.ts and named in its table: this scans the
// source for `process.env.X` reads anywhere else and for variables (env.X, envString('X')) the table lacks, checks
// that every row is read somewhere, and that docs/environment.md is the page `npm run docs` writes now.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  envDefault,
  envInteger,
  envString,
  environmentVariables,
  type EnvironmentVariableName,
} from '../core/config/environment.ts';
import { ENVIRONMENT_PAGE_PATH, environmentPage } from '../bin/docs/environment-page.ts';

const ROOT = join(import.meta.dirname, '..');
const SOURCE_DIRS = [
  'bin',
  'core',
  'functions',
  'lib',
  'viewer',
  'reports',
  'results',
  'state-machine',
  'rehearsal',
  'simulators',
  'bench',
  'aws-facts',
];
const READER = 'core/config/environment.ts';

/** Files that may touch process.env by name, each with why. */
const EXCEPTIONS: Record<string, string> = {
  'rehearsal/lambda-bootstrap.mjs':
    "stands in for Lambda's runtime in a child process of plain node, which cannot load TypeScript; the variables " +
    'it reads are the runtime contract lambda-process.ts sets for it',
  'rehearsal/process-env.ts':
    'swaps the whole environment for an in-process run and restores it afterwards: no variable is read by name',
};

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules') return [];
    if (statSync(path).isDirectory()) return filesUnder(path);
    return /\.(ts|mts|mjs|js)$/.test(name) ? [path] : [];
  });
}

const sourceFiles = () =>
  SOURCE_DIRS.flatMap((d) => filesUnder(join(ROOT, d))).map((path) => ({
    file: relative(ROOT, path),
    text: readFileSync(path, 'utf8'),
  }));

const VARIABLE = String.raw`(?:[A-Z_][A-Z0-9_]*|npm_[a-z_]+)`;

/** Each `process.env` access by name (`.X`, `['X']`, `[key]`) or destructuring, as written. */
function processEnvReads(text: string): string[] {
  const member = /process\.env\s*(?:\?\.|\.|\[)\s*[^\s;),]*/g;
  const destructured = /\{[^{}]*\}\s*=\s*process\.env\b/g;
  return [...text.matchAll(member), ...text.matchAll(destructured)].map((m) => m[0]);
}

/** The variables a text reads: accessor calls (envString('X')) and `env.X` / `env['X']`, not assignments to them. */
function variablesRead(text: string): string[] {
  const calls = new RegExp(String.raw`\benv(?:String|Integer|Default)\(\s*['"](${VARIABLE})['"]`, 'g');
  const members = new RegExp(
    String.raw`(\bdelete\s+)?\benv(?:\.(${VARIABLE})\b|\[\s*['"](${VARIABLE})['"]\s*\])(\s*=(?!=))?`,
    'g',
  );
  return [
    ...[...text.matchAll(calls)].map((m) => m[1]),
    ...[...text.matchAll(members)].filter((m) => !m[1] && !m[4]).map((m) => m[2] ?? m[3]),
  ];
}

const table = environmentVariables();
const names = new Set<string>(table.map((v) => v.name));

describe('the environment variables', () => {
  it('are read through core/config/environment.ts only (process.env by name nowhere else)', () => {
    const offenders = sourceFiles()
      .filter(({ file }) => file !== READER && EXCEPTIONS[file] === undefined)
      .flatMap(({ file, text }) => processEnvReads(text).map((read) => `${file}: ${read}`));
    expect(offenders, 'read it with envString/envInteger from core/config/environment.ts').toEqual([]);
  });

  it('are all in its table: no code names a variable the table lacks', () => {
    // the reader itself is the table (its comments say `process.env.X`)
    const unknown = sourceFiles()
      .filter(({ file }) => file !== READER)
      .flatMap(({ file, text }) =>
        variablesRead(text)
          .filter((name) => !names.has(name))
          .map((name) => `${file}: ${name}`),
      );
    expect(unknown, 'add a row to core/config/environment.ts (then npm run docs)').toEqual([]);
  });

  it('have no dead rows: every row is read by the code (or, for the tests alone, by the tests)', () => {
    const inSource = new Set(sourceFiles().flatMap(({ text }) => variablesRead(text)));
    const testFiles = [...filesUnder(join(ROOT, 'test')), join(ROOT, 'vitest.config.ts')];
    const inTests = new Set(
      testFiles.flatMap((path) =>
        [...readFileSync(path, 'utf8').matchAll(new RegExp(String.raw`process\.env\.(${VARIABLE})\b`, 'g'))].map(
          (m) => m[1],
        ),
      ),
    );
    const dead = table
      .filter((v) => !inSource.has(v.name) && !(v.readBy.includes('tests') && inTests.has(v.name)))
      .map((v) => v.name);
    expect(dead, 'a row nothing reads: remove it, or read the variable through the reader').toEqual([]);
  });

  it('each say who reads them and what they mean, once', () => {
    expect(names.size).toBe(table.length);
    for (const v of table) {
      expect(v.readBy.length, v.name).toBeGreaterThan(0);
      expect(v.meaning.trim(), v.name).not.toBe('');
    }
  });

  it('are committed as docs/environment.md as the script writes it now (run `npm run docs` after changing it)', () => {
    expect(readFileSync(join(ROOT, ENVIRONMENT_PAGE_PATH), 'utf8')).toBe(environmentPage());
  });
});

describe('the scan', () => {
  it('finds reads by name, bracket and destructuring, and not a whole environment passed on', () => {
    const text = [
      'const a = process.env.DATABASE_URL;',
      "const b = process.env['OLLAMA_HOST'];",
      'const { HOME } = process.env;',
      'spawn(cmd, { env: { ...process.env, X: "1" } });',
    ].join('\n');
    expect(processEnvReads(text)).toEqual([
      'process.env.DATABASE_URL',
      "process.env['OLLAMA_HOST']",
      '{ HOME } = process.env',
    ]);
  });

  it('finds the variables read, not those assigned or deleted for a child process', () => {
    const text = [
      "envString('DATABASE_URL', env);",
      'if (env.NOT_A_ROW) f();',
      "const x = env['ALSO_NOT'];",
      'env.CHILD_ONLY = "1";',
      'delete env.CDK_DEFAULT_REGION;',
      "env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';",
      'const r = env.region;',
    ].join('\n');
    expect(variablesRead(text)).toEqual([
      'DATABASE_URL',
      'NOT_A_ROW',
      'ALSO_NOT',
      'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED',
    ]);
  });
});

describe('the reader', () => {
  const env = (vars: Partial<Record<EnvironmentVariableName, string>>): NodeJS.ProcessEnv => ({ ...vars });

  it('reads a string, an empty one as unset', () => {
    expect(envString('OLLAMA_HOST', env({ OLLAMA_HOST: 'http://gpu:11434' }))).toBe('http://gpu:11434');
    expect(envString('OLLAMA_HOST', env({ OLLAMA_HOST: '' }))).toBeUndefined();
    expect(envString('OLLAMA_HOST', env({}))).toBeUndefined();
  });

  it('reads a whole number, and refuses anything else naming the variable, the value and the fix', () => {
    expect(envInteger('PARAMETER_TTL_MS', env({ PARAMETER_TTL_MS: '5000' }))).toBe(5000);
    expect(envInteger('PARAMETER_TTL_MS', env({}))).toBeUndefined();
    for (const bad of ['soon', '1.5', '-1', ' '])
      expect(() => envInteger('PARAMETER_TTL_MS', env({ PARAMETER_TTL_MS: bad }))).toThrow(
        expect.objectContaining({
          name: 'InvalidInputError',
          field: 'PARAMETER_TTL_MS',
          message: expect.stringMatching(
            new RegExp(`^PARAMETER_TTL_MS is "${bad}"; it must be a whole number of at least 0: .*default \\(60000\\)`),
          ) as unknown,
        }),
      );
    expect(() => envInteger('BENCH_ACTIONS', env({ BENCH_ACTIONS: '0' }), 1)).toThrow(/at least 1/);
  });

  it('sets a default only where the variable is unset', () => {
    const set = env({ AWS_ACCESS_KEY_ID: 'mine' });
    envDefault('AWS_ACCESS_KEY_ID', 'sim', set);
    envDefault('AWS_SECRET_ACCESS_KEY', 'sim', set);
    expect(set).toEqual({ AWS_ACCESS_KEY_ID: 'mine', AWS_SECRET_ACCESS_KEY: 'sim' });
  });
});
