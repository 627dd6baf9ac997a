// The results commands with --aws: a deployed stack found through CloudFormation, its database read
// through the RDS Data API with the researcher's credentials, every call authorized against the policy
// `ariadne policy researcher` generates: zero denials, and the same output as the local command on the same data.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/temp-dir.ts';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { loadSweep, sweepRunInput } from '../core/sweeps/sweep-spec.ts';
import { registerSweep } from '../core/sweeps/sweep-registry.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { cli } from './support/cli.ts';
import { ariadneInProcess } from './support/cli-in-process.ts';
import { deployedStack, type DeployedStack } from './support/deployed-stack.ts';
import { researcherPolicy } from '../lib/researcher-policy.ts';
import { accessKeyIdFor } from '../rehearsal/iam.ts';
import { DEFAULT_BEDROCK_MODELS } from '../lib/ariadne-stack.ts';
import { baseModelId } from '../core/config/model-table.ts';

const SWEEP = `sweep: aws-results
agents: [{ agent: frontier }, { agent: random }]
mazes: { generators: [medium], sizes: [9], seeds: [1] }
repeats: 2
max_concurrency: 1
`;

let db: TestDatabase;
let stack: DeployedStack;
let ids: string[];
const { ariadne } = cli(() => db);

beforeAll(async () => {
  db = await testDatabase(2);
  const sweep = loadSweep(SWEEP, 'test');
  await registerSweep(db, sweep);
  ids = [];
  for (const run of sweep.runs.slice(0, 3))
    ids.push((await runLocalExperiment(sweepRunInput(sweep.spec.sweep, run, 1), { db })).experimentId!);
  // one still running (as a deployed experiment between turns)
  await db.pool.query(`UPDATE experiments SET status = 'running', updated_at = now() WHERE id = $1`, [ids[2]]);
  stack = await deployedStack(db);
}, 240_000);
afterAll(async () => {
  await stack?.close();
  await db?.drop();
});

/** The command locally and with --aws: both exit 0; their JSON, and the denials the --aws run met. */
async function bothWays(args: string[]) {
  const local = await ariadne([...args, '--json']);
  const before = stack.authorizer.denials.length;
  const aws = await ariadneInProcess([...args, '--json', '--aws'], stack.env);
  expect(local.stderr).not.toMatch(/ariadne:/);
  expect(aws.stderr).not.toMatch(/ariadne:/);
  expect([local.code, aws.code]).toEqual([0, 0]);
  expect(stack.authorizer.denials.slice(before)).toEqual([]);
  expect(aws.stderr).toContain('through the RDS Data API');
  return { local: JSON.parse(local.stdout) as unknown, aws: JSON.parse(aws.stdout) as unknown };
}

describe('results of a deployed stack, read with --aws', () => {
  it('status: the running experiments, as locally, and the executions Step Functions lists as running', async () => {
    // one experiment execution running on the stack's machine, started as the CLI's launch would
    await new SFNClient({
      region: stack.outputs.region,
      endpoint: stack.env.AWS_ENDPOINT_URL_SFN,
      credentials: { accessKeyId: stack.env.AWS_ACCESS_KEY_ID!, secretAccessKey: 'researcher-secret' },
    }).send(
      new StartExecutionCommand({ stateMachineArn: stack.outputs.stateMachineArn, name: 'running-1', input: '{}' }),
    );
    const { local, aws } = await bothWays(['status']);
    expect(aws).toEqual({ ...(local as object), executions: { experiments: 1, sweeps: 0 } });
    const text = await ariadneInProcess(['status', '--aws'], stack.env);
    expect(text.stdout).toMatch(/^on AWS: 1 experiment execution\(s\) and 0 sweep execution\(s\) running$/m);
    expect(aws).toMatchObject({ running: [{ experiment_id: expect.stringMatching(/^aws-results-/) }] });
  });

  it("sweep status: the sweep's totals, as locally", async () => {
    const { local, aws } = await bothWays(['sweep', 'status', 'aws-results']);
    expect(aws).toEqual({ ...(local as object), executions: { experiments: 1, sweeps: 0 } });
    expect(aws).toMatchObject({ sweep: { runs: 4, started: 3, running: 1, completed: 2 } });
  });

  it('status --aws: a stale experiment says what Step Functions knows of its execution', async () => {
    const sfn = new SFNClient({
      region: stack.outputs.region,
      endpoint: stack.env.AWS_ENDPOINT_URL_SFN,
      credentials: { accessKeyId: stack.env.AWS_ACCESS_KEY_ID!, secretAccessKey: 'researcher-secret' },
    });
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: stack.outputs.stateMachineArn, name: 'lost-1', input: '{}' }),
    );
    stack.sfn.finishExecution(executionArn!, 'FAILED', undefined, {
      error: 'States.Timeout',
      cause: 'The execution timed out',
    });
    // the running experiment, silent for an hour, its newest execution the one that failed
    const { rows } = await db.pool.query(
      `UPDATE experiments SET updated_at = now() - interval '1 hour', execution_arns = array_append(execution_arns, $1)
       WHERE status = 'running' RETURNING id`,
      [executionArn],
    );
    expect(rows).toHaveLength(1);
    try {
      const r = await ariadneInProcess(['status', '--aws', '--json'], stack.env);
      expect(r.code).toBe(0);
      const { running } = JSON.parse(r.stdout) as { running: Array<{ stale: string; execution_arn: string }> };
      expect(running).toMatchObject([{ execution_arn: executionArn }]);
      expect(running[0].stale).toMatch(
        new RegExp(
          '^no turn recorded for 60 min .*; its execution ended FAILED at \\S+ ' +
            '\\(States\\.Timeout: The execution timed out\\), but the database was not told',
        ),
      );
    } finally {
      await db.pool.query(
        `UPDATE experiments SET updated_at = now(), execution_arns = array_remove(execution_arns, $1) WHERE id = $2`,
        [executionArn, rows[0].id],
      );
    }
  });

  it('doctor --aws: every check passes; a missing migration fails, saying how to fix it', async () => {
    const before = stack.authorizer.denials.length;
    const ok = await ariadneInProcess(['doctor', '--aws', '--json'], stack.env);
    expect(ok.code).toBe(0);
    const checks = JSON.parse(ok.stdout) as Array<{ check: string; ok: boolean }>;
    expect(checks.map((c) => [c.check, c.ok])).toEqual([
      ['credentials and Region', true],
      ['stack', true],
      ['database', true],
      ['migrations', true],
      ['parameters', true],
      ['Bedrock models', true],
      ['your permissions', true],
    ]);
    expect(checks.find((c) => c.check === 'Bedrock models')).toMatchObject({ skipped: true });
    // every action-resource pair of the researcher policy, simulated for the caller's own user
    expect(checks.at(-1)).toMatchObject({
      detail: expect.stringMatching(/user\/Researcher may call all \d+ action-resource pairs/),
    });
    expect(stack.authorizer.denials.slice(before)).toEqual([]);
    // a deployment whose last migration did not run: one line says so, and how to fix it
    const last = await db.pool.query(
      'DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations) RETURNING *',
    );
    try {
      const behind = await ariadneInProcess(['doctor', '--aws'], stack.env);
      expect(behind.code).toBe(3);
      expect(behind.stdout).toMatch(/FAIL {2}migrations: at \d+, this version of Ariadne expects \d+/);
      expect(behind.stdout).toMatch(/fix: deploy this version \(npx cdk deploy\)/);
    } finally {
      const r = last.rows[0];
      await db.pool.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
        r.version,
        r.name,
        r.checksum,
      ]);
    }
  });

  it("doctor --aws --bedrock: each model's lifecycle and one-token call in the parameters' Region", async () => {
    const before = stack.authorizer.denials.length;
    const ok = await ariadneInProcess(['doctor', '--aws', '--bedrock', '--json'], stack.modelResearcherEnv);
    const checks = JSON.parse(ok.stdout) as Array<{ check: string; ok: boolean; detail: string; fix?: string }>;
    const of = (m: string) => checks.filter((c) => c.check === `Bedrock ${m}` || c.check === `Bedrock ${m} lifecycle`);
    for (const m of DEFAULT_BEDROCK_MODELS) {
      const [lifecycle, call] = of(m);
      expect(lifecycle).toMatchObject({
        ok: true,
        detail: `${m.replace(/^global\./, '')} is ACTIVE in ${stack.outputs.region}`,
      });
      expect(call).toMatchObject({ ok: true, detail: expect.stringMatching(`^answers in ${stack.outputs.region}`) });
      // its tokens- and requests-per-minute quotas, read from Service Quotas as the researcher policy allows
      expect(checks.find((c) => c.check === `Bedrock ${m} quotas`)).toMatchObject({
        ok: true,
        detail: expect.stringMatching(/^[\d,]+ tokens\/min \("Global cross-Region InvokeModel tokens per minute for /),
      });
    }
    expect(stack.authorizer.denials.slice(before)).toEqual([]);
    // without the --bedrock statements the same checks are refused: each model's call fails, naming the fix
    const refused = await ariadneInProcess(['doctor', '--aws', '--bedrock'], stack.env);
    expect(refused.code).toBe(3);
    const [first] = DEFAULT_BEDROCK_MODELS;
    expect(refused.stdout).toContain(`FAIL  Bedrock ${first}: AccessDeniedException: `);
    expect(refused.stdout).toMatch(/fix: the caller may not invoke .*policy researcher --bedrock/);
    expect(refused.stdout).toMatch(/skip {2}Bedrock .* lifecycle: AccessDeniedException/);
    // the refusals were the lifecycle reads and model calls and nothing else (taken out, so the file's zero-denial
    // check stays exact)
    const denied = stack.authorizer.denials.splice(before);
    expect(denied.map((d) => [d.principal, d.action])).toEqual(
      DEFAULT_BEDROCK_MODELS.flatMap(() => [
        ['Researcher', 'bedrock:GetFoundationModel'],
        ['Researcher', 'bedrock:InvokeModel'],
      ]),
    );
  });

  it('doctor --aws --bedrock: a deployed model turned Legacy is a WARN naming its replacement and EOL', async () => {
    const deployed = stack.ssm.parameters.find((p) => p.name.endsWith('/deployment/bedrock_models'))!;
    const before = deployed.value;
    const sonnet45 = 'global.anthropic.claude-sonnet-4-5-20250929-v1:0'; // Legacy on Bedrock since 2026-10-08
    const sonnet46 = 'global.anthropic.claude-sonnet-4-6'; // Active on Bedrock, Legacy on Anthropic's page
    const haiku = DEFAULT_BEDROCK_MODELS[1];
    deployed.value = [sonnet45, sonnet46, haiku].join(',');
    stack.bedrock.models.push(sonnet45, sonnet46);
    // AWS moves Haiku 4.5 to Legacy with an end-of-life date (a scenario: the model table names no replacement)
    stack.bedrock.lifecycles.set(baseModelId(haiku), {
      status: 'legacy',
      legacy: '2026-12-01',
      endOfLife: '2027-06-01',
    });
    try {
      // the researcher's --bedrock policy names the models the stack was deployed with, these
      const env = stack.modelResearcherFor([sonnet45, sonnet46, haiku]);
      const r = await ariadneInProcess(['doctor', '--aws', '--bedrock', '--json'], env);
      expect(r.stderr).not.toMatch(/ariadne:/);
      expect(r.code).toBe(0);
      const checks = JSON.parse(r.stdout) as Array<{ check: string; detail: string; fix?: string }>;
      const lifecycle = (m: string) => checks.find((c) => c.check === `Bedrock ${m} lifecycle`);
      const region = stack.outputs.region;
      const sonnet55 = 'global.anthropic.claude-sonnet-5-5';
      const moveTo =
        `deploy ${sonnet55}, its replacement (-c bedrockModelIds=${sonnet55}), ` + 'and start new studies on it';
      expect(lifecycle(sonnet45)).toEqual({
        check: `Bedrock ${sonnet45} lifecycle`,
        ok: true,
        warning: true,
        detail:
          `${baseModelId(sonnet45)} is LEGACY since 2026-10-08 in ${region}, its end of life not yet announced: ` +
          'new accounts cannot use it, and an account idle on it for 15 days loses it',
        fix: moveTo,
      });
      expect(lifecycle(sonnet46)).toMatchObject({
        warning: true,
        detail:
          `anthropic.claude-sonnet-4-6 is ACTIVE in ${region}, but its vendor labels it Legacy (Anthropic: ` +
          'https://platform.claude.com/docs/en/models/sonnet-4-6/overview, read 2026-11-28): Bedrock may follow',
        fix: moveTo,
      });
      expect(lifecycle(haiku)).toMatchObject({
        warning: true,
        detail: expect.stringMatching(/ is LEGACY since 2026-12-01 in \S+, end of life 2027-06-01: new accounts/),
        fix: 'deploy an Active model (-c bedrockModelIds=...) and start new studies on it',
      });
      // the text report marks them WARN, each with its fix under it
      const text = await ariadneInProcess(['doctor', '--aws', '--bedrock'], env);
      expect(text.stdout).toContain(`WARN  Bedrock ${sonnet45} lifecycle: `);
      expect(text.stdout).toContain(`      fix: ${moveTo}`);
    } finally {
      deployed.value = before;
      stack.bedrock.models.splice(stack.bedrock.models.indexOf(sonnet45), 2);
      stack.bedrock.lifecycles.clear();
    }
  });

  it('doctor --aws: permissions a researcher lacks are named, action and resource, by the IAM simulator', async () => {
    const partial = 'PartialResearcher';
    const policy = researcherPolicy(stack.outputs);
    // a researcher who may read results but not launch: the launch statement dropped
    policy.Statement = policy.Statement.filter((st) => st.Sid !== 'LaunchExperimentsAndSweeps');
    stack.authorizer.model.addPrincipal(partial, policy);
    const r = await ariadneInProcess(['doctor', '--aws'], { ...stack.env, AWS_ACCESS_KEY_ID: accessKeyIdFor(partial) });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(
      new RegExp(`FAIL {2}your permissions: \\S+user/${partial} may not call 2 of \\d+: states:StartExecution on `),
    );
    expect(r.stdout).toContain(`states:StartExecution on ${stack.outputs.sweepStateMachineArn} (implicitDeny)`);
  });

  it.each([
    ['summary', () => ['summary', ids[0]]],
    ['list', () => ['list']],
    ['list --sweeps', () => ['list', '--sweeps']],
    ['sql', () => ['sql', 'SELECT experiment_id, status, actions FROM experiment_summary ORDER BY experiment_id']],
    ['compare', () => ['compare', 'aws-results', 'frontier', 'random']],
    ['stats', () => ['stats', 'aws-results']],
    ['stats --by a setting', () => ['stats', 'aws-results', '--by', 'label,vision_range']],
  ])('%s: the same JSON as locally', async (_label, args) => {
    const { local, aws } = await bothWays(args());
    expect(aws).toEqual(local);
  });

  it.each([
    ['export (CSV)', (dir: string) => ['export', 'aws-results', '--out-dir', dir]],
    ['export (JSON Lines)', (dir: string) => ['export', 'aws-results', '--format', 'jsonl', '--out-dir', dir]],
    ['export (Parquet)', (dir: string) => ['export', 'aws-results', '--format', 'parquet', '--out-dir', dir]],
    ['export (Inspect)', (dir: string) => ['export', 'aws-results', '--format', 'inspect-eval', '--out-dir', dir]],
    ['export (OTLP)', (dir: string) => ['export', 'aws-results', '--format', 'otlp', '--out-dir', dir]],
    ['export --run', (dir: string) => ['export', '--run', ids[0], '--format', 'inspect', '--out-dir', dir]],
    ['replay', (dir: string) => ['replay', ids[0], '--out-dir', dir]],
    ['report', (dir: string) => ['report', 'aws-results', '--out-dir', dir, '--max-replays', '2']],
  ])('%s: the same files as locally', async (_label, args) => {
    const [localDir, awsDir] = [tempDir('local'), tempDir('aws')];
    const local = await ariadne([...args(localDir), '--json']);
    const aws = await ariadneInProcess([...args(awsDir), '--json', '--aws'], stack.env);
    expect([local.code, aws.code], aws.stderr).toEqual([0, 0]);
    const files = (out: string) => (JSON.parse(out) as { files: Array<{ path: string }> }).files.map((f) => f.path);
    const [localFiles, awsFiles] = [files(local.stdout), files(aws.stdout)];
    expect(awsFiles.map((f) => relative(awsDir, f))).toEqual(localFiles.map((f) => relative(localDir, f)));
    for (const [i, f] of awsFiles.entries()) expect(readFileSync(f).equals(readFileSync(localFiles[i])), f).toBe(true);
  });

  it('sql --aws reads only: a write through the Data API is refused, naming --write, and changes nothing', async () => {
    const write = await ariadneInProcess(['sql', 'CREATE TABLE stray_aws (n int)', '--aws'], stack.env);
    expect(write.code, write.stdout).toBe(2);
    expect(write.stderr).toMatch(/ariadne sql reads: .*read-only transaction.*add --write/);
    const there = await ariadneInProcess(
      ['sql', "SELECT to_regclass('stray_aws') IS NOT NULL AS there", '--json', '--aws'],
      stack.env,
    );
    expect(JSON.parse(there.stdout)).toEqual([{ there: false }]);
  });

  it('every call was a researcher call the policy allows: Data API and the stack lookup, counted', () => {
    const calls = stack.authorizer.summary().Researcher;
    expect(calls['cloudformation:DescribeStacks']).toBeGreaterThan(0);
    expect(calls['rds-data:ExecuteStatement']).toBeGreaterThan(0);
    expect(stack.authorizer.denials).toEqual([]);
  });
});
