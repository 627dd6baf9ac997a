// The scenario "researcher": after the other scenarios, a researcher on a laptop reads their experiments with the
// CLI's --aws commands, finding the stack through the CloudFormation server and every request signed with the
// researcher's key and authorized against the policy `ariadne policy researcher` prints. Each command must exit 0 with
// no denial, and what it reads must agree with the world's database.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { researcherPolicy } from '../lib/researcher-policy.ts';
import { runAriadne, serveAriadne } from './ariadne-process.ts';
import { researcherEnv, stackOutputsOf, stackServer } from './stack-outputs.ts';
import { IdentitySim } from '../simulators/identity-sim.ts';
import type { World } from './world.ts';
import { LARGEST_MAZE_LABEL } from './scenario-largest-maze.ts';

/** Thrown when a researcher command fails, is denied, or reads something the database does not hold. */
class ResearcherScenarioError extends Error {
  override readonly name = 'ResearcherScenarioError';
}

/** What the researcher scenario does not prove, for the report's notes. */
export const RESEARCHER_NOTES = [
  'Researcher: the read commands only (doctor, list, summary, replay, export, sql, status, view --aws); ' +
    'launch, sweep run and stopping executions are not run as the researcher',
];

const RESEARCHER = 'Researcher';
const SECRET = 'researcher-secret';

function check(ok: boolean, message: string): void {
  if (!ok) throw new ResearcherScenarioError(message);
}

/** One number from the world's database (its own connection, not the Data API the researcher reads through). */
async function count(world: World, sql: string, params: unknown[] = []): Promise<number> {
  return (await world.db.pool.query<{ n: number }>(sql, params)).rows[0].n;
}

/** A researcher command's JSON: it must exit 0, and every request it made must have been allowed. */
type ResearcherCommand = <T>(...args: string[]) => Promise<T>;

export async function researcherScenario(world: World): Promise<string> {
  const { model, authorizer } = world;
  const outputs = stackOutputsOf(model);
  const accessKeyId = model.addPrincipal(RESEARCHER, researcherPolicy(outputs));
  const cfn = stackServer(outputs, authorizer);
  // STS and IAM for doctor's check of the researcher's own permissions (simulated from the same IAM model)
  const identity = new IdentitySim(authorizer);
  const outDir = mkdtempSync(join(tmpdir(), 'rehearsal-researcher-'));
  try {
    const identityUrl = await identity.listen();
    const env = researcherEnv(outputs, accessKeyId, SECRET, {
      AWS_ENDPOINT_URL_CLOUDFORMATION: await cfn.listen(),
      AWS_ENDPOINT_URL_RDS_DATA: world.endpoints.AWS_ENDPOINT_URL_RDS_DATA,
      AWS_ENDPOINT_URL_SSM: world.endpoints.AWS_ENDPOINT_URL_SSM,
      AWS_ENDPOINT_URL_SFN: world.endpoints.AWS_ENDPOINT_URL_SFN,
      AWS_ENDPOINT_URL_STS: identityUrl,
      AWS_ENDPOINT_URL_IAM: identityUrl,
    });
    const ariadne = researcherCommand(world, env, outputs.stackName);
    await checkDoctor(ariadne);
    const listed = await checkList(world, ariadne);
    const completed = await checkSummary(world, ariadne);
    const replayed = await checkLargestMazeReplay(world, ariadne, outDir);
    const { sweep, actions } = await checkSweepExport(world, ariadne, outDir);
    await checkSql(world, ariadne);
    const { counted, running } = await checkStatus(world, ariadne, outputs.stateMachineArn);
    const viewed = await viewScenario(world, env, outputs.stackName, completed);

    const calls = [...(authorizer.counts.get(RESEARCHER)?.values() ?? [])].reduce((a, b) => a + b, 0);
    return (
      `doctor, list, summary, export (jsonl), sql, status and view --aws as the researcher policy: ${calls} calls ` +
      `allowed, ${listed} experiments listed, sweep ${sweep} exported (${actions} actions), ` +
      `${counted} of ${running} running experiment executions counted by status, ${viewed}` +
      replayed
    );
  } finally {
    await cfn.close();
    await identity.close();
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** `ariadne ARGS --aws --json` as the researcher: its JSON, once it exits 0 with no request denied. */
function researcherCommand(world: World, env: Record<string, string | undefined>, stackName: string) {
  const { authorizer } = world;
  const ariadne: ResearcherCommand = async <T>(...args: string[]): Promise<T> => {
    const command = `ariadne ${args.join(' ')} --aws --json`;
    const before = authorizer.denials.length;
    const run = await runAriadne([...args, '--aws', '--json', '--stack', stackName], env);
    // The world is idle while a command runs: every denial since it started is its own (an unknown key too).
    const denied = new Set(authorizer.denials.slice(before).map((d) => `${d.principal} ${d.action} on ${d.resource}`));
    check(denied.size === 0, `${command} was denied: ${[...denied].join('; ')}`);
    const why = `${run.stderr.trim().split('\n').at(-1)}${run.stdout ? `; stdout: ${run.stdout.slice(0, 300)}` : ''}`;
    check(run.code === 0, `${command} exited ${run.code ?? 'on its timeout'}: ${why}`);
    try {
      return JSON.parse(run.stdout) as T;
    } catch {
      throw new ResearcherScenarioError(`${command} printed no JSON: ${run.stdout.slice(0, 200)}`);
    }
  };
  return ariadne;
}

/** doctor --aws: every check passes. */
async function checkDoctor(ariadne: ResearcherCommand): Promise<void> {
  const checks = await ariadne<Array<{ check: string; ok: boolean }>>('doctor');
  const failing = checks.filter((c) => !c.ok);
  check(failing.length === 0, `doctor --aws: ${failing.map((c) => c.check).join(', ')} failed`);
}

/** list --aws lists every experiment of the database; how many. */
async function checkList(world: World, ariadne: ResearcherCommand): Promise<number> {
  const experiments = await count(world, 'SELECT count(*)::int AS n FROM experiments');
  const listed = await ariadne<Array<{ experiment_id: string }>>('list', '--limit', '100000');
  check(listed.length === experiments, `list --aws: ${listed.length} experiments, the database has ${experiments}`);
  return listed.length;
}

/** summary --aws of the latest completed experiment counts its actions; that experiment. */
async function checkSummary(world: World, ariadne: ResearcherCommand): Promise<{ id: string; actions_taken: number }> {
  const { rows } = await world.db.pool.query<{ id: string; actions_taken: number }>(
    "SELECT id, actions_taken FROM experiments WHERE sweep_id IS NULL AND status = 'completed' " +
      'ORDER BY started_at DESC, id LIMIT 1',
  );
  check(rows.length === 1, 'no completed experiment to summarize: run the researcher scenario after one');
  const summary = await ariadne<{ experiment_id: string; actions: number }>('summary', rows[0].id);
  check(
    summary.actions === rows[0].actions_taken,
    `summary --aws of ${rows[0].id}: ${summary.actions} actions, the database has ${rows[0].actions_taken}`,
  );
  return rows[0];
}

/**
 * replay --aws of the largest maze's run, when the largest-maze scenario ran (its maze is read as one Data API
 * row); the report's words for it, or ''.
 */
async function checkLargestMazeReplay(world: World, ariadne: ResearcherCommand, outDir: string): Promise<string> {
  const largest = await world.db.pool.query<{ id: string; steps: number }>(
    'SELECT id, actions_taken AS steps FROM experiments WHERE id LIKE $1 ORDER BY started_at DESC LIMIT 1',
    [`rehearsal-${LARGEST_MAZE_LABEL}-%`],
  );
  if (!largest.rows[0]) return '';
  const replay = await ariadne<{ experiment_id: string; steps: number }>(
    'replay',
    largest.rows[0].id,
    '--out',
    join(outDir, 'largest-maze-replay.html'),
  );
  check(replay.steps >= largest.rows[0].steps, `replay --aws of the largest maze: ${replay.steps} steps`);
  return `, replay --aws of the largest maze (${replay.steps} steps)`;
}

/** export --aws (jsonl) of the latest sweep writes every experiment and action of it; the sweep and its actions. */
async function checkSweepExport(
  world: World,
  ariadne: ResearcherCommand,
  outDir: string,
): Promise<{ sweep: string; actions: number }> {
  const sweeps = await world.db.pool.query<{ id: string }>('SELECT id FROM sweeps ORDER BY created_at DESC LIMIT 1');
  check(sweeps.rows.length === 1, 'no sweep to export: run the researcher scenario after the sweep scenario');
  const sweep = sweeps.rows[0].id;
  const exported = await ariadne<{ files: Array<{ path: string; rows: number }> }>(
    'export',
    sweep,
    '--format',
    'jsonl',
    '--out-dir',
    outDir,
  );
  const expected = [
    await count(world, 'SELECT count(*)::int AS n FROM experiments WHERE sweep_id = $1', [sweep]),
    await count(
      world,
      `SELECT count(*)::int AS n FROM actions a JOIN experiments e ON e.id = a.experiment_id ` +
        `WHERE e.sweep_id = $1`,
      [sweep],
    ),
  ];
  const lines = exported.files.map((f) => readFileSync(f.path, 'utf8').split('\n').filter(Boolean).length);
  check(
    JSON.stringify(exported.files.map((f) => f.rows)) === JSON.stringify(expected) &&
      JSON.stringify(lines) === JSON.stringify(expected),
    `export --aws of ${sweep}: ${lines.join(' and ')} lines written (experiments, actions), ` +
      `the database has ${expected.join(' and ')}`,
  );
  return { sweep, actions: expected[1] };
}

/** sql --aws counts the actions the database holds. */
async function checkSql(world: World, ariadne: ResearcherCommand): Promise<void> {
  const actions = await count(world, 'SELECT count(*)::int AS n FROM actions');
  const [queried] = await ariadne<Array<{ n: number }>>('sql', 'SELECT count(*)::int AS n FROM actions');
  check(queried?.n === actions, `sql --aws: ${queried?.n} actions, the database has ${actions}`);
}

/**
 * status --aws reads ListExecutions once per machine (at most 1000): the experiment machine's running executions,
 * as counted and as Step Functions has them.
 */
async function checkStatus(
  world: World,
  ariadne: ResearcherCommand,
  stateMachineArn: string,
): Promise<{ counted: number; running: number }> {
  const running = [...world.sims.sfn.executions.values()].filter(
    (e) => e.stateMachineArn === stateMachineArn && e.status === 'RUNNING',
  ).length;
  const status = await ariadne<{ executions?: { experiments: number } }>('status');
  check(
    status.executions?.experiments === Math.min(running, 1000),
    `status --aws: ${status.executions?.experiments} experiment executions running, Step Functions has ${running}`,
  );
  return { counted: status.executions!.experiments, running };
}

/**
 * `ariadne view --aws` as the researcher: the viewer's table and one experiment, read over HTTP from the viewer,
 * must agree with the database, with no request denied while it served (its live feed polled too).
 */
async function viewScenario(
  world: World,
  env: Record<string, string | undefined>,
  stackName: string,
  experiment: { id: string; actions_taken: number },
): Promise<string> {
  const before = world.authorizer.denials.length;
  const viewer = await serveAriadne(['view', '--aws', '--stack', stackName, '--port', '0', '--poll', '500'], env);
  const url = viewer.firstLine.trim();
  try {
    const get = async <T>(path: string): Promise<T> => {
      const res = await fetch(url + path);
      const body = (await res.json()) as T & { error?: { message: string } };
      check(res.ok, `view --aws: GET /${path} answered ${res.status}: ${body.error?.message}`);
      return body;
    };
    const list = await get<{ total: number }>('api/experiments?limit=1000');
    const experiments = await count(world, 'SELECT count(*)::int AS n FROM experiments');
    check(
      list.total === experiments,
      `view --aws: the table has ${list.total} experiments, the database ${experiments}`,
    );
    const one = await get<{ steps: number }>(`api/experiments/${experiment.id}`);
    check(
      one.steps === experiment.actions_taken,
      `view --aws: experiment ${experiment.id} draws ${one.steps} steps, the database has ${experiment.actions_taken}`,
    );
    // the live stream's first read of the change feed, through the Data API
    const live = await fetch(`${url}api/live`);
    const reader = live.body!.getReader();
    const hello = new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    check(hello.includes('event: hello'), `view --aws: the live stream began with ${JSON.stringify(hello)}`);
  } finally {
    const ended = await viewer.stop();
    check(ended.code === 0, `view --aws exited ${ended.code}: ${ended.stderr.trim().split('\n').at(-1)}`);
  }
  const denied = world.authorizer.denials.slice(before).map((d) => `${d.principal} ${d.action} on ${d.resource}`);
  check(denied.length === 0, `view --aws was denied: ${[...new Set(denied)].join('; ')}`);
  return `view --aws served ${experiment.actions_taken} steps of ${experiment.id}`;
}
