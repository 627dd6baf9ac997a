// The exit-code contract (docs/getting-started.md, `ariadne --help`): 0 success, 1 the work ran and some of it
// failed, 2 bad input or a lookup that found nothing, 3 an environment problem. Each command and outcome runs as
// the installed CLI runs it (runCli; cli-startup checks a process exits alike), with the embedded database (the
// default a new user gets), with DATABASE_URL, and against a local Step Functions endpoint for the AWS commands.
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult } from './support/cli.ts';
import { ariadneInProcess } from './support/cli-in-process.ts';
import { tableCounts, testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import { SfnSim } from '../simulators/sfn-sim.ts';

const dir = tempDir('exit-codes');
// The embedded server runs as user "postgres" when we are root: it must be able to enter the directory.
chmodSync(dir, 0o777);

let db: TestDatabase;
const model = 'qwen2.5:7b';
const healthy = new OllamaSim({ models: [model] });
// Every chat answers 400: a permanent provider error, so the experiment is finalized failed at once.
const refusing = new OllamaSim({ models: [model], always: { kind: 'status', status: 400 } });
const sfn = new SfnSim();
let healthyUrl = '',
  refusingUrl = '',
  sfnUrl = '',
  closedPort = 0;

beforeAll(async () => {
  db = await testDatabase();
  [healthyUrl, refusingUrl, sfnUrl] = await Promise.all([healthy.listen(), refusing.listen(), sfn.listen()]);
  closedPort = await new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
});
afterAll(async () => {
  await Promise.all([healthy.close(), refusing.close(), sfn.close()]);
  await db.drop();
});

type Mode = 'embedded' | 'DATABASE_URL';
const MODES: Mode[] = ['embedded', 'DATABASE_URL'];
const envFor = (mode: Mode): Record<string, string | undefined> =>
  mode === 'embedded'
    ? { DATABASE_URL: undefined, DATABASE_SCHEMA: undefined, ARIADNE_DATA_DIR: join(dir, 'postgres') }
    : { DATABASE_URL: db.url, DATABASE_SCHEMA: db.schema };

/** The result, with its output in the failure message: a wrong exit code shows why. */
async function ariadne(mode: Mode, args: string[], env: Record<string, string | undefined> = {}) {
  const r = await ariadneInProcess(args, { ...envFor(mode), ...env });
  return { ...r, shown: `ariadne ${args.join(' ')} (${mode}) exited ${r.code}\n${r.stdout}\n${r.stderr}` };
}
const expectExit = (r: CliResult & { shown: string }, code: number) => expect(r.code, r.shown).toBe(code);

function sweepFile(name: string, body: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, body);
  return file;
}
const mazes = 'mazes: { generators: [medium], sizes: [11], seeds: [1] }\nconfig: { max_moves: 300 }\n';
const frontierSweep = (name: string, repeats = 1) =>
  sweepFile(`${name}-${repeats}`, `sweep: ${name}\nagents: [{ agent: frontier }]\n${mazes}repeats: ${repeats}\n`);
const ollamaSweep = (name: string, host: string, served = model) =>
  sweepFile(
    name,
    `sweep: ${name}\nagents: [{ agent: ollama, model: "${served}", config: { ollama: { host: "${host}" } } }]\n` +
      `${mazes}repeats: 2\n`,
  );

describe.each(MODES)('with %s', (mode) => {
  const id = `exit-${mode === 'embedded' ? 'e' : 'u'}`;
  const small = ['--maze', 'medium', '--size', '11', '--seed', '1', '--quiet'];

  it('run: 0 when it completes, 1 when the experiment failed (its summary still shown)', async () => {
    expectExit(await ariadne(mode, ['run', ...small, '--experiment-id', `${id}-ok`]), 0);
    const llm = ['--provider', 'ollama', '--model', model, '--ollama-host', refusingUrl];
    const failed = await ariadne(mode, ['run', ...small, ...llm, '--experiment-id', `${id}-failed`]);
    expectExit(failed, 1);
    expect(failed.stdout).toMatch(/^status\s+failed/m);
  });

  it('summary and sql: 0 when found, 2 when not', async () => {
    expectExit(await ariadne(mode, ['summary', `${id}-ok`]), 0);
    expectExit(await ariadne(mode, ['summary', 'no-such-id']), 2);
    const bad = await ariadne(mode, ['sql', 'select 1/0']);
    expectExit(bad, 2);
    expect(bad.stderr).toMatch(/division by zero/);
  });

  it('sweep: 0 when every run succeeds, 1 when some failed, 2 for a changed spec (not growth) of a name', async () => {
    expectExit(await ariadne(mode, ['sweep', frontierSweep(`${id}-fine`, 2)]), 0);
    expectExit(await ariadne(mode, ['sweep', ollamaSweep(`${id}-failing`, refusingUrl)]), 1);
    // fewer repeats is not growth (more would be: the sweep grows)
    expectExit(await ariadne(mode, ['sweep', frontierSweep(`${id}-fine`, 1)]), 2);
  });
});

describe('lookups that find nothing exit 2', () => {
  it('resume, replay, report, export, compare; sql 0 when the query runs', async () => {
    expectExit(await ariadne('DATABASE_URL', ['sql', 'SELECT 1 AS one']), 0);
    expectExit(await ariadne('DATABASE_URL', ['resume', 'exit-u-ok']), 2); // finished: nothing to resume
    for (const args of [
      ['resume', 'no-such-id'],
      ['replay', 'no-such-id'],
      ['report', 'no-such-sweep'],
      ['export', 'no-such-sweep'],
      ['compare', 'no-such-sweep', 'random', 'frontier'],
    ])
      expectExit(await ariadne('DATABASE_URL', args, { ARIADNE_OUTPUT_DIR: join(dir, 'out') }), 2);
  });
});

describe('sweeps check every model host before the first run, as run does', () => {
  it('an unreachable host exits 3, a model the host lacks exits 2; nothing is written', async () => {
    const before = await tableCounts(db);
    const down = await ariadne('DATABASE_URL', ['sweep', ollamaSweep('pre-down', `http://127.0.0.1:${closedPort}`)]);
    expectExit(down, 3);
    expect(down.stderr).toContain(
      `cannot reach Ollama at config.ollama.host http://127.0.0.1:${closedPort} (sweep agent "qwen2.5:7b") ` +
        '(ECONNREFUSED); start it (ollama serve, or: ',
    );
    expect(down.stderr).toMatch(/ or set config\.ollama\.host to the server's URL\n/);
    const missing = await ariadne('DATABASE_URL', ['sweep', ollamaSweep('pre-missing', healthyUrl, 'mistral:7b')]);
    expectExit(missing, 2);
    expect(missing.stderr).toMatch(/sweep agent "mistral:7b": model "mistral:7b" is not on the Ollama server/);
    expect(await tableCounts(db)).toEqual(before);
  });
});

describe('the commands that need no database', () => {
  it('run: 2 for bad input, 3 when the model host is down', async () => {
    expectExit(await ariadne('embedded', ['run', '--size', '4']), 2);
    const host = `http://127.0.0.1:${closedPort}`;
    const down = await ariadne('embedded', ['run', '--provider', 'ollama', '--model', model, '--ollama-host', host]);
    expectExit(down, 3);
    expect(down.stderr).toMatch(/cannot reach Ollama/);
  });

  it('maze, mazes, workflow, sim: 0 or 2', async () => {
    expectExit(await ariadne('embedded', ['mazes']), 0);
    expectExit(await ariadne('embedded', ['maze', '--maze', 'spiral', '--size', '11']), 0);
    expectExit(await ariadne('embedded', ['maze', '--maze', 'perfect', '--size', '10']), 2);
    expectExit(await ariadne('embedded', ['workflow', 'examples/workflows/observe-plan-act.yaml']), 0);
    expectExit(await ariadne('embedded', ['workflow', join(dir, 'missing.yaml')]), 2);
    expectExit(await ariadne('embedded', ['sim', 'ollama', '--faults', 'teapot']), 2);
    expectExit(await ariadne('embedded', ['--version']), 0);
    expectExit(await ariadne('embedded', ['no-such-command']), 2);
  });

  it('a database that cannot be reached exits 3', async () => {
    const r = await ariadne('DATABASE_URL', ['summary', 'x'], {
      DATABASE_URL: `postgres://u:p@127.0.0.1:${closedPort}/x`,
    });
    expectExit(r, 3);
    expect(r.stderr).toMatch(/cannot connect to DATABASE_URL/);
  });
});

describe('on AWS (a local Step Functions endpoint)', () => {
  const machine = 'arn:aws:states:eu-west-1:123456789012:stateMachine:AriadneExperiments';
  const execution = 'arn:aws:states:eu-west-1:123456789012:execution:AriadneExperiments:no-such-run';
  const creds = { AWS_ACCESS_KEY_ID: 'sim', AWS_SECRET_ACCESS_KEY: 'sim' };
  // No credentials anywhere: no variables, no profile files, no instance role to ask.
  const noCreds = {
    AWS_ACCESS_KEY_ID: undefined,
    AWS_SECRET_ACCESS_KEY: undefined,
    AWS_PROFILE: undefined,
    AWS_CONFIG_FILE: join(dir, 'no-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
  };

  it('launch: 0 when started, 2 for bad input, 3 when the endpoint is down or there are no credentials', async () => {
    const launch = ['launch', '--state-machine-arn', machine, '--agent', 'random', '--maze', 'medium'];
    expectExit(await ariadne('embedded', [...launch, '--endpoint', sfnUrl], creds), 0);
    expectExit(await ariadne('embedded', [...launch, '--size', '4', '--endpoint', sfnUrl], creds), 2);
    expectExit(await ariadne('embedded', [...launch, '--endpoint', `http://127.0.0.1:${closedPort}`], creds), 3);
    const none = await ariadne('embedded', [...launch, '--endpoint', sfnUrl], noCreds);
    expectExit(none, 3);
    expect(none.stderr).toMatch(/no AWS credentials were found/);
    expect(none.stderr).not.toMatch(/CredentialsProviderError/);
  });

  it('status: 2 for an execution that does not exist, 3 without credentials', async () => {
    const missing = await ariadne('embedded', ['status', execution, '--endpoint', sfnUrl], creds);
    expectExit(missing, 2);
    expect(missing.stderr).toMatch(/ExecutionDoesNotExist/);
    expectExit(await ariadne('embedded', ['status', execution, '--endpoint', sfnUrl], noCreds), 3);
  });
});
