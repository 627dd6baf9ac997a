// Every ```sh block of README.md and docs/ runs as shown, through the real CLI, and must exit 0, in page order, as one
// session (one database and directory; a server a block starts keeps running). A block that cannot run here is
// declared by an HTML comment on the line before it: `<!-- readme-test: not run (REASON) -->`, or `not run: WORD
// (REASON); ...` for the commands starting with WORD, and no declaration may cover a command that can run. Only the
// shell the pages need is parsed (words, quotes, `\`, #, &&, VAR=value); anything else fails.
import { execFileSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ariadneProcess, outputOf, ROOT, type CliResult } from './support/cli.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';
import { freePort } from './support/ports.ts';
import { SfnSim } from '../simulators/sfn-sim.ts';
import { CloudFormationSim } from '../simulators/cloudformation-sim.ts';
import { RdsDataSim } from '../simulators/rds-data-sim.ts';
import { SsmSim } from '../simulators/ssm-sim.ts';
import { IdentitySim } from '../simulators/identity-sim.ts';
import { BedrockSim } from '../simulators/bedrock-sim.ts';
import { LambdaSim } from '../simulators/lambda-sim.ts';
import { DEFAULT_BEDROCK_MODELS } from '../lib/ariadne-stack.ts';
import { sharedAssembly } from './support/assembly.ts';

const COMMAND_TIMEOUT_MS = 180_000;
const SERVER_READY_MS = 60_000;

// ---- reading the pages

/** The pages in the order they run: the README, then docs/ in an order that keeps what each needs before it (the
 * simulators the later model runs and the sweep call; the sweep before the pages that read its results). */
const PAGES = [
  'README.md',
  'docs/getting-started.md',
  'docs/agents-and-providers.md',
  'docs/prompts-and-observations.md',
  'docs/settings.md',
  'docs/sweeps-and-statistics.md',
  'docs/viewer.md',
  'docs/data-model.md',
  'docs/robustness.md',
  'docs/aws-deploy.md',
  'docs/rehearsal.md',
  'docs/architecture.md',
  'docs/testing.md',
  'docs/cli.md',
  'docs/observation-formats.md',
  'docs/aws-facts.md',
  'docs/environment.md',
];

interface Command {
  /** The page (or package.json script) it is written in. */
  file: string;
  line: number;
  text: string;
  env: Record<string, string>;
  words: string[];
  /** It uses $... (a variable or a substitution), which this test does not expand. */
  expands: boolean;
}

interface Block {
  file: string;
  line: number;
  body: string;
  declaration?: { file: string; line: number; text: string };
}

const pageLines = (file: string) => readFileSync(join(ROOT, file), 'utf8').split('\n');
const SHELL_FENCE = /^(sh|bash|shell|zsh)$/;
const DECLARATION = /<!--\s*readme-test\b/;

function pageBlocks(file: string): { blocks: Block[]; strayDeclarations: string[] } {
  const lines = pageLines(file);
  const blocks: Block[] = [];
  const declarations = new Set<number>();
  let fence: { line: number; info: string; body: string[] } | null = null;
  lines.forEach((text, i) => {
    const m = /^\s*```(.*)$/.exec(text);
    if (fence) {
      if (m && m[1].trim() === '') {
        if (SHELL_FENCE.test(fence.info)) {
          const before = lines[fence.line - 2] ?? '';
          blocks.push({
            file,
            line: fence.line,
            body: fence.body.join('\n'),
            ...(DECLARATION.test(before) ? { declaration: { file, line: fence.line - 1, text: before.trim() } } : {}),
          });
          if (DECLARATION.test(before)) declarations.delete(fence.line - 1);
        }
        fence = null;
      } else fence.body.push(text);
    } else if (m) fence = { line: i + 1, info: m[1].trim(), body: [] };
    else if (DECLARATION.test(text)) declarations.add(i + 1);
  });
  return { blocks, strayDeclarations: [...declarations].map((line) => `${file}:${line}: ${lines[line - 1].trim()}`) };
}

/** The commands of a block of the pages' shell subset; `firstLine` is the line of its first character. */
function parseShell(body: string, firstLine: number, source: string): Command[] {
  const commands: Command[] = [];
  let words: string[] = [],
    word = '',
    inWord = false,
    expands = false,
    line = firstLine,
    startLine = firstLine,
    start = -1;
  const fail = (what: string): never => {
    throw new Error(
      `${source}:${line}: cannot parse ${what}. The docs test reads words, '...' and "..." quotes, \\ at the ` +
        'end of a line, # comments, && and VAR=value prefixes: write the command in those, or teach ' +
        'test/readme-commands.test.ts the new syntax',
    );
  };
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = (end: number) => {
    endWord();
    if (words.length > 0) {
      const env: Record<string, string> = {};
      let k = 0;
      for (; k < words.length - 1 && /^[A-Za-z_]\w*=/.test(words[k]); k++) {
        const eq = words[k].indexOf('=');
        env[words[k].slice(0, eq)] = words[k].slice(eq + 1);
      }
      commands.push({
        file: source,
        line: startLine,
        text: body.slice(start, end).trim(),
        env,
        words: words.slice(k),
        expands,
      });
    }
    words = [];
    expands = false;
    start = -1;
  };
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (start < 0 && !/\s/.test(c)) {
      start = i;
      startLine = line;
    }
    if (c === '\n') {
      endCommand(i);
      line++;
    } else if (c === ' ' || c === '\t') endWord();
    else if (c === '\\') {
      if (i + 1 >= body.length) fail('a \\ at the end of the block');
      if (body[i + 1] === '\n') line++;
      else {
        word += body[i + 1];
        inWord = true;
      }
      i++;
    } else if (c === '#' && !inWord) {
      while (i + 1 < body.length && body[i + 1] !== '\n') i++;
    } else if (c === "'") {
      const j = body.indexOf("'", i + 1);
      if (j < 0) fail("an unterminated ' quote");
      const quoted = body.slice(i + 1, j);
      line += quoted.split('\n').length - 1;
      word += quoted;
      inWord = true;
      i = j;
    } else if (c === '"') {
      inWord = true;
      for (i++; body[i] !== '"'; i++) {
        if (i >= body.length) fail('an unterminated " quote');
        const d = body[i];
        if (d === '\\' && '"\\$`\n'.includes(body[i + 1])) {
          if (body[i + 1] === '\n') line++;
          else word += body[i + 1];
          i++;
          continue;
        }
        if (d === '`') fail('a ` command substitution');
        if (d === '$') expands = true;
        if (d === '\n') line++;
        word += d;
      }
    } else if (c === '&' && body[i + 1] === '&') {
      // `a && b`: b runs when a succeeded; here every command must succeed, so they simply run in order.
      endCommand(i);
      i++;
    } else {
      if (c === '$') expands = true;
      else if ('|;&<>()`*?[]{}!'.includes(c) || (c === '~' && !inWord)) fail(`\`${c}\``);
      word += c;
      inWord = true;
    }
  }
  endCommand(body.length);
  return commands;
}

interface Declared {
  /** The words the commands not run start with; null: the whole block. */
  prefix: string[] | null;
  reason: string;
}

function parseDeclaration(d: { file: string; line: number; text: string }): Declared[] {
  const body = /^<!--\s*readme-test:\s*(.*?)\s*-->$/.exec(d.text)?.[1] ?? '';
  const whole = /^not run \(([^()]+)\)$/.exec(body);
  if (whole) return [{ prefix: null, reason: whole[1] }];
  const items = /^not run: (.+)$/
    .exec(body)?.[1]
    .split(';')
    .map((item) => /^\s*([^()]+?)\s+\(([^()]+)\)\s*$/.exec(item));
  if (!items || items.some((item) => !item))
    throw new Error(
      `${d.file}:${d.line}: cannot read ${d.text}; write <!-- readme-test: not run (REASON) --> before a block ` +
        'none of whose commands can run here, or <!-- readme-test: not run: COMMAND WORDS (REASON); ... -->',
    );
  return items.map((item) => ({ prefix: item![1].split(/\s+/), reason: item![2] }));
}

// ---- what a command runs

const SCRIPTS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
  .scripts;

/** The arguments a command gives the ariadne CLI, or null when it is not the CLI (the test cannot run it). */
function cliArgs(cmd: Command): string[] | null {
  const [program, ...rest] = cmd.words;
  // `npm link` installs `ariadne`; ./bin/ariadne.js is the same entry
  if (program === 'ariadne' || program === './bin/ariadne.js') return rest;
  if (program !== 'npm') return null;
  const [script, extra] =
    rest[0] === 'start' ? ['start', rest.slice(1)] : rest[0] === 'run' ? [rest[1], rest.slice(2)] : [null, []];
  if (!script) return null;
  if (!Object.hasOwn(SCRIPTS, script))
    throw new Error(`${cmd.file}:${cmd.line}: ${cmd.text}\npackage.json has no script "${script}"`);
  const scriptCommands = parseShell(SCRIPTS[script], 1, `package.json scripts.${script}`);
  const ran = scriptCommands[0];
  // the CLI's entry, from source (tsx bin/ariadne.ts) or through its launcher (node bin/ariadne.js)
  const entry = `${ran.words[0]} ${ran.words[1]}`;
  if (scriptCommands.length !== 1 || (entry !== 'tsx bin/ariadne.ts' && entry !== 'node bin/ariadne.js')) return null;
  // Without `--`, npm passes the words on but takes the options (-x, --x) as its own settings.
  if (extra[0] !== '--' && extra.some((w) => w.startsWith('-')))
    throw new Error(
      `${cmd.file}:${cmd.line}: ${cmd.text}\nnpm would take the options as its own settings: ` +
        `write npm run ${script} -- ${extra.join(' ')}`,
    );
  return [...ran.words.slice(2), ...(extra[0] === '--' ? extra.slice(1) : extra)];
}

/** The commands that serve until Ctrl-C, and what each prints once it is ready. */
const SERVERS: Record<string, RegExp> = {
  sim: /^simulated \S+ at \S+/m,
  db: /^DATABASE_URL=\S+/m,
  view: /^http:\/\/127\.0\.0\.1:\d+\/$/m,
};

/** The commands that talk to a deployed stack: they get the simulated AWS account. */
const needsAws = (args: string[]) =>
  ['launch', 'policy', 'status', 'secret'].includes(args[0]) || args.includes('--aws');

/**
 * What a command reads from standard input, as a person would type it (`secret set` prompts for a key; `play` reads
 * a person's moves: one who gives up at once ends the game, exit 0).
 */
const typedInput = (args: string[]) =>
  args[0] === 'secret' ? 'sk-typed-by-the-docs-test\n' : args[0] === 'play' ? 'quit\n' : '';

/**
 * The ports the pages show: `sim`'s default for each kind, `view`'s, as the CLI has them. Each runs on a free port of
 * this run's instead (a researcher's laptop runs Ollama on 11434, and another copy of the suite may run meanwhile);
 * the pages keep the documented ports. A page's `--port N` and 127.0.0.1:N or localhost:N in a URL are mapped alike.
 */
const DOCUMENTED_PORTS: Record<string, number> = {
  ollama: 11434,
  bedrock: 8787,
  openai: 8000,
  view: 8047,
  // the viewer with its play page, beside the read-only one the viewer's page started first
  play: 8048,
};
/** Documented port -> the free port this run uses for it, taken in beforeAll. */
const runPorts = new Map<number, number>();

function runPort(cmd: Command, documented: number): number {
  const port = runPorts.get(documented);
  if (port === undefined)
    throw new Error(
      `${cmd.file}:${cmd.line}: ${cmd.text}
uses port ${documented}, which the docs test does not map to a free ` +
        'one: show a documented port, or add it to DOCUMENTED_PORTS',
    );
  return port;
}

/** A URL's documented port (127.0.0.1:8000, localhost:11434) as this run's. */
const withRunPorts = (cmd: Command, text: string) =>
  text.replace(/\b(127\.0\.0\.1|localhost):(\d+)\b/g, (whole, host: string, port: string) =>
    runPorts.has(Number(port)) ? `${host}:${runPort(cmd, Number(port))}` : whole,
  );

/** `sim KIND` and `view` serve on this run's port for the one they show (given with --port, or their default). */
function servingPort(cmd: Command, args: string[]): string[] {
  const documented = args[0] === 'sim' ? DOCUMENTED_PORTS[args[1]] : args[0] === 'view' ? DOCUMENTED_PORTS.view : null;
  if (documented === null || documented === undefined) return args;
  const at = args.indexOf('--port');
  if (at < 0) return [...args, '--port', String(runPort(cmd, documented))];
  return args.map((a, i) => (i === at + 1 ? String(runPort(cmd, Number(a))) : a));
}

// A placeholder is an upper-case name between ARN or URL separators (EXPERIMENT_ID, ...:NAME, :PORT/), or `...`.
const PLACEHOLDER = /(^|[:/=@])[A-Z][A-Z0-9]*(_[A-Z0-9]+)*(?=$|[:/@])|\.\.\./;

// ---- the session: one schema, one working directory, the servers the pages started

let db: TestDatabase;
let cwd = '';
const sfn = new SfnSim();
let sfnUrl = '';
/** The deployed stack `ariadne policy` reads the outputs of (DescribeStacks). */
const cloudFormation = new CloudFormationSim([
  {
    name: 'Ariadne',
    status: 'CREATE_COMPLETE',
    outputs: {
      StateMachineArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:Ariadne-experiments',
      SweepStateMachineArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:Ariadne-sweeps',
      SweepBucketName: 'ariadne-sweepsbucket-0123456789ab',
      DatabaseClusterArn: 'arn:aws:rds:eu-west-1:123456789012:cluster:ariadne-databasecluster-0123456789ab',
      DatabaseSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:Ariadne-DatabaseSecret-AbCdEf',
      // the guide's commands read as the sim's one user (the read-only role is the rehearsal's to prove)
      DatabaseReaderSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:Ariadne-DatabaseSecret-AbCdEf',
      BedrockModels: 'global.anthropic.claude-sonnet-4-6',
      DatabaseName: 'ariadne',
    },
  },
]);
let cloudFormationUrl = '';
/** The stack's database (the Data API in front of this session's schema) and parameters, for `--aws` commands. */
let dataApi: RdsDataSim | undefined;
let dataApiUrl = '';
const parameterStore = new SsmSim([
  { name: '/ariadne/config/max_moves', value: '5000', type: 'String' },
  { name: '/ariadne/deployment/bedrock_models', value: 'amazon.nova-lite-v1:0', type: 'StringList' },
  // the account's CDK bootstrap version, which doctor --template checks before a deploy
  { name: '/cdk-bootstrap/hnb659fds/version', value: '30', type: 'String' },
]);
/** GetAccountSettings, for doctor --template's Lambda concurrency check. */
const lambda = new LambdaSim();
let lambdaUrl = '';
/** The models doctor --bedrock calls: the parameter's above, and the synthesized stack's (doctor --template). */
const bedrock = new BedrockSim({ models: ['amazon.nova-lite-v1:0', ...DEFAULT_BEDROCK_MODELS] });
let bedrockUrl = '';
let bedrockControlUrl = '';
let parameterStoreUrl = '';
/** STS and IAM for doctor's permissions check: no IAM policies here, so the check is skipped (they are tested in
 * test/results-aws.test.ts against the rehearsal's IAM model). */
const identity = new IdentitySim();
let identityUrl = '';
/** The arguments of the last run of each command (launch, status, ...). */
const previous = new Map<string, string[]>();
/** The execution ARNs `launch` printed. */
const launched: string[] = [];

interface Server {
  cmd: Command;
  args: string[];
  child: ChildProcessWithoutNullStreams;
  stdout: string;
  stderr: string;
  exit?: number | null;
}
const servers: Server[] = [];
const report: string[] = [];
/** cdk.out linked into the working directory (the shared assembly, synthesized on first use). */
let assemblyLinked: Promise<void> = Promise.resolve();
/** The first page that names cdk.out: its blocks and every later page's wait for the assembly. */
const FIRST_ASSEMBLY_PAGE = PAGES.findIndex((page) => pageLines(page).some((line) => line.includes('cdk.out')));

/** A copy of the repository's files: `npm run` runs at the package root, so the pages' relative paths are read
 * from there, and what a command writes lands in the copy, never in the repository. */
function copyOfRepository(dir: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  for (const file of files.split('\0').filter(Boolean)) {
    const from = join(ROOT, file);
    if (!existsSync(from) || !statSync(from).isFile()) continue; // deleted in the work tree, or a directory link
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(from, join(dir, file));
  }
}

// No AWS account: no keys, no profile, no instance role; the docs' Bedrock simulator command brings its own
// keys, and only the commands for a deployed stack get the simulated account.
const noAwsAccount = (): Record<string, string | undefined> => ({
  AWS_ACCESS_KEY_ID: undefined,
  AWS_SECRET_ACCESS_KEY: undefined,
  AWS_SESSION_TOKEN: undefined,
  AWS_PROFILE: undefined,
  AWS_DEFAULT_PROFILE: undefined,
  AWS_REGION: undefined,
  AWS_DEFAULT_REGION: undefined,
  AWS_ENDPOINT_URL: undefined,
  AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: undefined,
  AWS_CONTAINER_CREDENTIALS_FULL_URI: undefined,
  AWS_WEB_IDENTITY_TOKEN_FILE: undefined,
  AWS_CONFIG_FILE: join(cwd, '.no-aws-config'),
  AWS_SHARED_CREDENTIALS_FILE: join(cwd, '.no-aws-credentials'),
  AWS_EC2_METADATA_DISABLED: 'true',
});

function envFor(cmd: Command, args: string[]): Record<string, string | undefined> {
  const given = Object.fromEntries(Object.entries(cmd.env).map(([k, v]) => [k, withRunPorts(cmd, v)]));
  return {
    ...noAwsAccount(),
    DATABASE_URL: db.url,
    DATABASE_SCHEMA: db.schema,
    // where the CLI's default output directory would be for a user at the package root (npm sets INIT_CWD)
    ARIADNE_OUTPUT_DIR: join(cwd, 'ariadne-output'),
    INIT_CWD: cwd,
    // the documented defaults (the servers the pages' `sim` commands start), on this run's ports; not this machine's
    // settings
    OLLAMA_HOST: `http://127.0.0.1:${runPort(cmd, DOCUMENTED_PORTS.ollama)}`,
    OPENAI_BASE_URL: `http://127.0.0.1:${runPort(cmd, DOCUMENTED_PORTS.openai)}/v1`,
    OLLAMA_API_KEY: undefined,
    ARIADNE_PARAMETERS: undefined,
    ARIADNE_SWEEP_STATE_MACHINE_ARN: undefined,
    ...(needsAws(args)
      ? {
          AWS_ACCESS_KEY_ID: 'sim',
          AWS_SECRET_ACCESS_KEY: 'sim',
          AWS_ENDPOINT_URL_SFN: sfnUrl,
          // the Region of the simulated stack, for a command that takes it from the environment (ariadne policy)
          AWS_REGION: 'eu-west-1',
          AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormationUrl,
          AWS_ENDPOINT_URL_RDS_DATA: dataApiUrl,
          AWS_ENDPOINT_URL_SSM: parameterStoreUrl,
          AWS_ENDPOINT_URL_STS: identityUrl,
          AWS_ENDPOINT_URL_IAM: identityUrl,
          AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrockUrl,
          AWS_ENDPOINT_URL_BEDROCK: bedrockControlUrl,
          AWS_ENDPOINT_URL_LAMBDA: lambdaUrl,
        }
      : {}),
    ...given,
  };
}

/** The pages' placeholders that must stay, filled from what earlier commands did; any other is refused. */
function substitute(cmd: Command, args: string[]): string[] {
  const out: string[] = [];
  for (const arg of args) {
    if (arg === '...') {
      // `launch ... --dry-run`: "the options of the launch above"
      const before = previous.get(args[0]);
      if (!before) throw new Error(`${cmd.file}:${cmd.line}: \`...\` stands for the options of an earlier ${args[0]}`);
      out.push(...before.slice(1));
      continue;
    }
    const execution = /^(arn:aws:states:[^:]+:\d{12}:execution:[^:]+:)NAME$/.exec(arg);
    if (execution) {
      // `status ...:NAME`: an execution `launch` started above (named by a hash of its input, so the page
      // cannot spell it out)
      const arn = launched.find((a) => a.startsWith(execution[1]));
      if (!arn)
        throw new Error(`${cmd.file}:${cmd.line}: no execution of ${execution[1]}... was launched before ${arg}`);
      out.push(arn);
      continue;
    }
    out.push(withRunPorts(cmd, arg));
  }
  const left = [...out, ...Object.values(cmd.env)].filter((a) => PLACEHOLDER.test(a));
  if (left.length > 0)
    throw new Error(
      `${cmd.file}:${cmd.line}: ${cmd.text}\nhas the placeholder ${left.join(', ')}: show a value that runs ` +
        '(e.g. --experiment-id demo-1 in an earlier command, then summary demo-1), or teach the test where it ' +
        'comes from',
    );
  return servingPort(cmd, out);
}

/** The first line of a command as written, without its comment or continuation. */
const oneLine = (text: string) =>
  text
    .split('\n')[0]
    .replace(/\s+#.*$/, '')
    .replace(/\s*\\$/, ' ...');
const tail = (s: string, n = 6000) => (s.length > n ? `[... ${s.length - n} characters before]\n${s.slice(-n)}` : s);
const quoted = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`);

function shown(cmd: Command, args: string[], r: CliResult, what: string): string {
  const background = servers
    .filter((s) => s.exit !== undefined)
    .map(
      (s) => `background \`${s.cmd.text}\` (${s.cmd.file}:${s.cmd.line}) exited ${s.exit}:\n${tail(s.stderr, 2000)}`,
    );
  return [
    `${cmd.file}:${cmd.line}: ${cmd.text}`,
    `ran: ${Object.entries(cmd.env)
      .map(([k, v]) => `${k}=${quoted(v)} `)
      .join('')}ariadne ${args.map(quoted).join(' ')}`,
    what,
    '--- stdout ---',
    tail(r.stdout),
    '--- stderr ---',
    tail(r.stderr),
    ...background,
  ].join('\n');
}

async function runToEnd(cmd: Command, args: string[]): Promise<void> {
  const child = ariadneProcess(args, envFor(cmd, args), cwd, COMMAND_TIMEOUT_MS);
  child.stdin.end(typedInput(args));
  const r = await outputOf(child);
  const what = r.code === null ? `killed after ${COMMAND_TIMEOUT_MS / 1000} s` : `exit code ${r.code}`;
  expect(r.code, shown(cmd, args, r, what)).toBe(0);
  if (args[0] === 'launch')
    launched.push(...Array.from(r.stdout.matchAll(/^(?:started|already launched) (arn:\S+)$/gm), (m) => m[1]));
}

/** A command that serves until Ctrl-C: started in the background, ready when it prints its ready line. */
async function startServer(cmd: Command, args: string[], ready: RegExp): Promise<void> {
  const child = ariadneProcess(args, envFor(cmd, args), cwd);
  const server: Server = { cmd, args, child, stdout: '', stderr: '' };
  servers.push(server);
  child.stdout.on('data', (d) => (server.stdout += d));
  child.stderr.on('data', (d) => (server.stderr += d));
  // kept for the whole session: a server that dies later is shown in the failures of the commands after it
  child.on('exit', (code) => (server.exit = code));
  const outcome = await new Promise<string>((resolve) => {
    const timer = setTimeout(() => settle(`not ready after ${SERVER_READY_MS / 1000} s`), SERVER_READY_MS);
    const check = () => {
      if (ready.test(server.stdout)) settle('ready');
    };
    function settle(what: string) {
      clearTimeout(timer);
      child.stdout.off('data', check);
      resolve(what);
    }
    child.stdout.on('data', check);
    child.once('exit', (code) => settle(`exited with code ${code} before it was ready`));
    child.once('error', (err) => settle(`could not start: ${err.message}`));
  });
  const r = { code: server.exit ?? null, stdout: server.stdout, stderr: server.stderr };
  expect(outcome, shown(cmd, args, r, outcome)).toBe('ready');
}

/** A command's name for a declaration: its leading plain words (npm run check, npx cdk deploy, psql). */
function commandName(words: string[]): string {
  const plain = words.findIndex((w, i) => i >= 3 || !/^[a-z][\w.:-]*$/.test(w));
  return words.slice(0, plain < 0 ? words.length : Math.max(plain, 1)).join(' ');
}

async function run(cmd: Command): Promise<void> {
  if (cmd.expands)
    throw new Error(`${cmd.file}:${cmd.line}: ${cmd.text}\nuses $..., which the docs test does not expand`);
  const cliGiven = cliArgs(cmd);
  if (!cliGiven)
    throw new Error(
      `${cmd.file}:${cmd.line}: the docs test cannot run ${cmd.text}\n(it runs the ariadne CLI: npm run ariadne ` +
        '-- ..., npm start, ariadne ...). If it cannot run here, declare it on the line before its block: ' +
        `<!-- readme-test: not run: ${commandName(cmd.words)} (REASON) -->`,
    );
  const args = substitute(cmd, cliGiven);
  const started = Date.now();
  const ready = Object.hasOwn(SERVERS, args[0]) ? SERVERS[args[0]] : undefined;
  if (ready) await startServer(cmd, args, ready);
  else await runToEnd(cmd, args);
  previous.set(args[0], args);
  report.push(
    `  ${cmd.file}:${cmd.line} ${ready ? 'started' : 'ran'} in ${((Date.now() - started) / 1000).toFixed(1)} s: ` +
      `ariadne ${args.map(quoted).join(' ')}`,
  );
}

/** The commands of the block a declaration leaves out, after checking that it leaves out none the test can run. */
function declaredNotRun(block: Block, commands: Command[]): Map<Command, string> {
  const out = new Map<Command, string>();
  if (!block.declaration) return out;
  for (const declared of parseDeclaration(block.declaration)) {
    const covered = commands.filter(
      (c) => declared.prefix === null || declared.prefix.every((w, i) => c.words[i] === w),
    );
    if (covered.length === 0)
      throw new Error(
        `${block.file}:${block.declaration.line}: ${declared.prefix?.join(' ')} is declared not run, ` +
          `but no command of the block at line ${block.line} starts with it`,
      );
    for (const c of covered) {
      if (cliArgs(c))
        throw new Error(
          `${block.file}:${block.declaration.line}: declares ${c.text} (line ${c.line}) not run, ` +
            `but the docs test runs the ariadne CLI: remove it from the declaration`,
        );
      out.set(c, declared.reason);
    }
  }
  return out;
}

// ---- the tests

const pages = PAGES.map(pageBlocks);
const blocks = pages.flatMap((p) => p.blocks);
const strayDeclarations = pages.flatMap((p) => p.strayDeclarations);

beforeAll(async () => {
  for (const port of Object.values(DOCUMENTED_PORTS)) runPorts.set(port, await freePort());
  db = await testDatabase();
  cwd = tempDir('readme');
  copyOfRepository(cwd);
  sfnUrl = await sfn.listen();
  cloudFormationUrl = await cloudFormation.listen();
  const outputs = cloudFormation.stacks.find((s) => s.name === 'Ariadne')!.outputs;
  dataApi = new RdsDataSim({
    url: db.url,
    schema: db.schema,
    clusterArn: outputs.DatabaseClusterArn,
    secretArn: outputs.DatabaseSecretArn,
    database: outputs.DatabaseName,
  });
  dataApiUrl = await dataApi.listen();
  parameterStoreUrl = await parameterStore.listen();
  identityUrl = await identity.listen();
  bedrockUrl = await bedrock.listen();
  bedrockControlUrl = bedrock.controlPlaneUrl;
  lambdaUrl = await lambda.listen();
  // what the deploy guide's `npx cdk synth` writes (declared not run: the tests synthesize the app once). Not waited
  // for here: the run's one synthesis (12 s, by whichever file asks first) goes on while the pages before the first
  // that names cdk.out run, instead of this worker idling on the assembly's lock.
  assemblyLinked = sharedAssembly().then((a) => symlinkSync(a.dir, join(cwd, 'cdk.out')));
  assemblyLinked.catch(() => undefined); // awaited by the blocks that need it: no unhandled rejection meanwhile
}, 240_000);

afterAll(async () => {
  await Promise.all(
    servers
      .filter((s) => s.exit === undefined)
      .map(
        (s) =>
          new Promise<void>((resolve) => {
            s.child.once('exit', () => resolve());
            s.child.kill('SIGKILL');
          }),
      ),
  );
  await sfn.close();
  await cloudFormation.close();
  await dataApi?.close();
  await parameterStore.close();
  await identity.close();
  await bedrock.close();
  await lambda.close();
  await db.drop();
  console.info(`Documented commands:\n${report.join('\n')}`);
});

describe('README.md and docs/: every command block runs as shown', () => {
  it('runs the README and every page of docs/, each once', () => {
    const docs = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
    expect([...PAGES].sort(), 'a page of docs/ belongs in PAGES, where what it needs has run before it').toEqual(
      ['README.md', ...docs.map((name) => `docs/${name}`)].sort(),
    );
  });

  it('has ```sh blocks, and every readme-test declaration sits on the line right before one', () => {
    expect(blocks.filter((b) => b.file === 'README.md').length).toBeGreaterThan(0);
    expect(strayDeclarations, 'a readme-test declaration belongs on the line right before a ```sh block').toEqual([]);
  });

  for (const block of blocks) {
    const first = block.body.split('\n').find((l) => l.trim() !== '') ?? '';
    const title = `${block.file}:${block.line}: ${oneLine(first)}`;
    it(
      block.declaration ? `${title} ${block.declaration.text}` : title,
      async () => {
        const commands = parseShell(block.body, block.line + 1, block.file);
        expect(commands.length, `${block.file}:${block.line}: a command block without a command`).toBeGreaterThan(0);
        const notRun = declaredNotRun(block, commands);
        if (PAGES.indexOf(block.file) >= FIRST_ASSEMBLY_PAGE) await assemblyLinked;
        for (const cmd of commands) {
          const reason = notRun.get(cmd);
          if (reason === undefined) await run(cmd);
          else report.push(`  ${cmd.file}:${cmd.line} not run (${reason}): ${oneLine(cmd.text)}`);
        }
      },
      COMMAND_TIMEOUT_MS * 2,
    );
  }

  it('the servers the pages started stop at Ctrl-C', async () => {
    for (const s of servers.filter((x) => x.exit === undefined)) {
      const exited = new Promise<number | null>((resolve) => s.child.once('exit', (code) => resolve(code)));
      s.child.kill('SIGINT');
      const code = await Promise.race([
        exited,
        new Promise<string>((r) => setTimeout(() => r('still running'), 15_000)),
      ]);
      expect(code, `${s.cmd.file}:${s.cmd.line}: ${s.cmd.text}, at Ctrl-C:\n${tail(s.stdout)}\n${tail(s.stderr)}`).toBe(
        0,
      );
    }
  });
});
