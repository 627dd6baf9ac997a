// The ariadne program as buildProgram() makes it: every command's --help lists
// its options with their defaults and ends with an example that parses, and
// errors become today's messages and exit codes. One spawned process checks
// that the real entry prints the same help.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CommanderError, type Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../bin/cli/program.ts';
import { printError } from '../bin/cli/errors.ts';
import { EXIT_CODES_HELP } from '../bin/cli/exit-codes.ts';
import { commandPrefix } from '../bin/cli/invocation.ts';
import { describeFileError } from '../bin/cli/file-errors.ts';
import { OBSERVATION_FORMATS, STUCK_POLICIES } from '../core/config/experiment-config.ts';
import { LLM_AGENTS } from '../core/providers/llm-agents.ts';
import { DEFAULT_CONFIG } from '../core/config/experiment-config.ts';
import { InvalidInputError } from '../core/errors.ts';
import { MazeInputError } from '../core/maze/errors.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Every command below `cmd`, depth first, with its path of names ("" is the program itself). */
function walk(cmd: Command, path: string[] = []): Array<{ path: string; cmd: Command }> {
  return cmd.commands.flatMap((c) => {
    const p = [...path, c.name()];
    return [{ path: p.join(' '), cmd: c }, ...walk(c, p)];
  });
}

/** What `--help` prints, including the text added after it. */
function helpOf(cmd: Command): string {
  let out = '';
  cmd.configureOutput({ writeOut: (s) => (out += s) });
  cmd.outputHelp();
  return out;
}

/** Help is wrapped to the terminal width: compare with runs of whitespace as one space. */
const flat = (s: string) => s.replace(/\s+/g, ' ');

const program = buildProgram();
const commands = [{ path: '', cmd: program }, ...walk(program)];

/** The experiment settings whose default is the parameters file's, else the built-in config. */
const SETTINGS = [
  ['--max-moves', 'max_moves'],
  ['--max-duration-minutes', 'max_duration_minutes'],
  ['--max-actions-per-turn', 'max_actions_per_turn'],
  ['--vision-range', 'vision_range'],
  ['--success-rule', 'success_rule'],
  ['--recall-interval', 'recall_interval'],
  ['--max-recall-actions', 'max_recall_actions'],
  ['--prompt-version', 'prompt_version'],
  ['--stuck-policy', 'stuck_policy'],
  ['--observation', 'observation'],
] as const;

describe('the program', () => {
  it('has every command', () => {
    expect(commands.map((c) => c.path).sort()).toEqual(
      [
        '',
        'compare',
        'db',
        'doctor',
        'export',
        'fork',
        'launch',
        'list',
        'maze',
        'mazes',
        'plan',
        'play',
        'policy',
        'replay',
        'report',
        'replicate',
        'rerun',
        'resume',
        'run',
        'secret',
        'secret set',
        'sim',
        'sql',
        'stats',
        'status',
        'summary',
        'sweep',
        'sweep status',
        'suite',
        'suite list',
        'suite record-humans',
        'suite show',
        'suite verify',
        'view',
        'workflow',
      ].sort(),
    );
  });
});

describe('the program help', () => {
  it('states the exit-code contract, one code a line, before the example', () => {
    const help = helpOf(program);
    expect(flat(help)).toContain(flat(EXIT_CODES_HELP.replaceAll(';', '')));
    expect(help).toMatch(
      /\nExit codes:\n {2}0 success\n {2}1 .+\n {2}2 .+\n {2}3 .+\n {2}130 \(143\) interrupted .+\n\nExample:\n/,
    );
  });

  it('has --version and a global --out-dir', () => {
    expect(program.options.map((o) => o.long)).toEqual(expect.arrayContaining(['--version', '--out-dir']));
  });
});

/** Commands that serve until Ctrl-C rather than print a result. */
const SERVERS = ['db', 'sim', 'view'];

it.each(commands.filter((c) => c.path !== '' && !SERVERS.includes(c.path)))('ariadne $path has --json', ({ cmd }) => {
  expect(cmd.options.map((o) => o.long)).toContain('--json');
});

it.each(['replay', 'report', 'export', 'maze'])('ariadne %s takes --out-dir', (name) => {
  expect(program.commands.find((c) => c.name() === name)!.options.map((o) => o.long)).toContain('--out-dir');
});

describe('the command prefix in hints', () => {
  it.each([
    [{}, 'ariadne'],
    [{ npm_lifecycle_event: '' }, 'ariadne'],
    [{ npm_lifecycle_event: 'ariadne', npm_package_name: 'ariadne' }, 'npm run ariadne --'],
    [{ npm_lifecycle_event: 'start', npm_package_name: 'ariadne' }, 'npm run ariadne --'],
    [{ npm_lifecycle_event: 'ariadne' }, 'npm run ariadne --'],
    [{ npm_lifecycle_event: 'npx', npm_lifecycle_script: 'tsx', npm_package_name: 'ariadne' }, 'npm run ariadne --'],
    [{ npm_lifecycle_event: 'npx', npm_lifecycle_script: 'ariadne' }, 'npx ariadne'],
    // a user's own npm script that calls the installed command
    [{ npm_lifecycle_event: 'study', npm_package_name: 'my-study' }, 'ariadne'],
  ])('%j: %s', (env, prefix) => {
    expect(commandPrefix(env)).toBe(prefix);
  });
});

describe('file errors in words', () => {
  it.each([
    ['ENOENT', 'no such file or directory (ENOENT)'],
    ['EACCES', 'permission denied (EACCES)'],
    ['EISDIR', 'is a directory (EISDIR)'],
    ['ENOTDIR', 'a part of the path is a file, not a directory (ENOTDIR)'],
  ])('%s', (code, words) => {
    expect(describeFileError(Object.assign(new Error(`${code}: raw`), { code, syscall: 'open' }))).toBe(words);
  });

  it('keeps the message of anything else', () => {
    expect(describeFileError(Object.assign(new Error('EWEIRD: odd'), { code: 'EWEIRD' }))).toBe('EWEIRD: odd');
    expect(describeFileError('text')).toBe('text');
  });
});

describe.each(commands)('ariadne $path --help', ({ path, cmd }) => {
  const help = helpOf(cmd);

  it('lists every option, with its default where it has one', () => {
    expect(help).toMatch(/-h, --help +display help for command/);
    for (const option of cmd.options) {
      const shown =
        option.defaultValue === undefined || option.isBoolean()
          ? `${option.flags} ${option.description}`
          : `${option.flags} ${option.description} (default: ${JSON.stringify(option.defaultValue)})`;
      expect(flat(help)).toContain(shown);
    }
  });

  it('ends with one example that runs this command', () => {
    expect(help.match(/Example:/g)).toHaveLength(1);
    const last = help.trimEnd().split('\n').slice(-2);
    expect(last[0]).toBe('Example:');
    // the program's example runs some command; a command's runs that command
    expect(last[1]).toMatch(path === '' ? /^ {2}\$ ariadne \S/ : new RegExp(`^ {2}\\$ ariadne ${path}( |$)`));
  });

  it('gives an example that parses: the options exist and their values are valid', async () => {
    const example = help
      .trimEnd()
      .split('\n')
      .at(-1)!
      .replace(/^ {2}\$ /, '');
    // shell words: "quoted strings" or runs of non-spaces; the first is the program's own name
    const argv = [...example.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]).slice(1);
    const fresh = buildProgram();
    let ran = '';
    // the same program, with actions that only record what would run
    for (const c of walk(fresh)) c.cmd.action(() => void (ran = c.path));
    await fresh.parseAsync(argv, { from: 'user' });
    expect(ran).toBe(path === '' ? argv[0] : path);
  });
});

describe.each(['run', 'launch'])('ariadne %s: settings the parameters file can set', (name) => {
  const cmd = program.commands.find((c) => c.name() === name)!;

  it.each(SETTINGS)('%s shows its default and leaves the value to the parameters', (flag, key) => {
    const option = cmd.options.find((o) => o.long === flag);
    expect(option).toBeDefined();
    expect(option!.defaultValue).toBeUndefined();
    expect(option!.description).toMatch(
      new RegExp(` \\(default: /ariadne/config/${key}, else ${String(DEFAULT_CONFIG[key])}\\)$`),
    );
    expect(flat(helpOf(cmd))).toContain(`${option!.flags} ${option!.description}`);
  });

  it('leaves every setting undefined when the command line does not give it', async () => {
    const fresh = buildProgram();
    const c = fresh.commands.find((x) => x.name() === name)!;
    c.action(() => {});
    const args =
      name === 'launch' ? ['--state-machine-arn', 'arn:aws:states:us-east-1:123456789012:stateMachine:M'] : [];
    await fresh.parseAsync([name, ...args], { from: 'user' });
    const opts = c.opts<Record<string, unknown>>();
    expect(opts).toMatchObject({ maze: 'medium', size: 30, seed: 7, agent: 'frontier' });
    const keys = [
      'maxMoves',
      'visionRange',
      'successRule',
      'promptVersion',
      'stuckPolicy',
      'seeThrough',
      'observation',
    ];
    for (const key of keys) expect(opts[key]).toBeUndefined();
  });
});

describe('the error printer', () => {
  const printed = (err: unknown) => {
    let text = '';
    const stderr = { write: (s: string) => (text += s) } as unknown as NodeJS.WritableStream;
    return { code: printError(err, stderr), text };
  };

  it('help and version exit 0, a usage error 2, and commander has already printed them', () => {
    expect(printed(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'))).toEqual({ code: 0, text: '' });
    expect(printed(new CommanderError(1, 'commander.unknownOption', "error: unknown option '--colour'"))).toEqual({
      code: 2,
      text: '',
    });
  });

  it('an input error exits 2 with its message', () => {
    expect(printed(new InvalidInputError('--size', '4', '--size must be a whole number from 5 to 201, got 4'))).toEqual(
      {
        code: 2,
        text: '\nariadne: --size must be a whole number from 5 to 201, got 4\n',
      },
    );
    expect(printed(new MazeInputError('--maze-file', 'm.json', 'bad maze')).code).toBe(2);
  });

  it('anything else exits 1 with the error name', () => {
    expect(printed(new TypeError('x is not a function'))).toEqual({
      code: 1,
      text: '\nariadne: TypeError: x is not a function\n',
    });
    expect(printed('a string')).toEqual({ code: 1, text: '\nariadne: a string\n' });
  });
});

describe('the real entry', () => {
  it('npx tsx bin/ariadne.ts run --help prints the options, their defaults and the example, and exits 0', () => {
    const r = spawnSync('npx', ['tsx', 'bin/ariadne.ts', 'run', '--help'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    expect(flat(r.stdout)).toContain('--size <n> square maze side, 5-201 (default: 30)');
    expect(flat(r.stdout)).toContain(
      '--max-moves <n> stop after this many actions; a whole number from 1 to 1000000 ' +
        '(default: /ariadne/config/max_moves, else 10000)',
    );
    expect(r.stdout.trimEnd()).toMatch(/\nExample:\n {2}\$ ariadne run .+$/);
  });

  it('--version prints the version in package.json', () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'bin/ariadne.ts', '--version'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${version}\n`);
  });
});

describe('the choices a setting takes, as the help and the getting-started page list them', () => {
  const runHelp = flat(helpOf(program.commands.find((c) => c.name() === 'run')!));
  const guide = readFileSync(fileURLToPath(new URL('../docs/getting-started.md', import.meta.url)), 'utf8');
  it.each([
    ['--observation', OBSERVATION_FORMATS],
    ['--stuck-policy', STUCK_POLICIES],
    ['--provider', LLM_AGENTS],
  ] as const)('%s: every value the schema takes', (flag, values) => {
    const help = runHelp.slice(runHelp.indexOf(flag), runHelp.indexOf(flag) + 300);
    const row = guide.split('\n').find((line) => line.startsWith(`| \`${flag}`)) ?? '';
    for (const value of values) {
      expect(help, `run --help, ${flag}`).toContain(value);
      expect(row, `docs/getting-started.md, ${flag}`).toContain(value);
    }
  });
});
