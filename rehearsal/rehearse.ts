// The deploy rehearsal (issue 17): what `cdk deploy` would upload, run the way
// the template wires it. Each Lambda's bundle runs in its own child process
// with the template's environment (tokens resolved to one fake account), signs
// its AWS calls with its own access key, and reaches local servers that speak
// the AWS protocols and authorize every call against that function's role
// policies from the template. The synthesized experiment machine drives the
// Tasks; quotas are checked on the way. A denial, a quota violation or a
// scenario whose database rows are wrong fails the rehearsal.
import { randomBytes } from 'node:crypto';
import { synthesizeAssembly, type CloudAssembly, type AssemblyFunction } from './cloud-assembly.ts';
import { LambdaProcess } from './lambda-process.ts';
import { IamModel } from './iam.ts';
import { RequestAuthorizer, type Denial } from './authorizer.ts';
import type { CfnTemplate } from './template-values.ts';
import { openDatabase, type Database } from '../lambdas/store/database.ts';
import { RdsDataSim } from '../test/servers/rds-data-sim.ts';
import { SsmSim } from '../test/servers/ssm-sim.ts';
import { BedrockSim } from '../test/servers/bedrock-sim.ts';
import { DEFAULT_BEDROCK_MODELS } from '../lib/ariadne-stack.ts';
import { runLocalExecution } from '../state-machine/local-runner.ts';
import { TASK_STATES, type TaskState } from '../state-machine/states.ts';
import type { Handler } from '../lambdas/handlers/deps.ts';

/** Step Functions' limit on a state's input and output, an execution's input and a task's result. */
export const STATE_PAYLOAD_LIMIT = 256 * 1024;

interface QuotaViolation {
  quota: string;
  where: string;
  bytes: number;
  limit: number;
}

interface ScenarioResult {
  name: string;
  pass: boolean;
  detail: string;
}

export interface RehearsalReport {
  /** function logical id -> AWS action -> calls */
  calls: Record<string, Record<string, number>>;
  denials: Denial[];
  violations: QuotaViolation[];
  scenarios: ScenarioResult[];
  /** What the rehearsal does not model, said in its output. */
  notes: string[];
  seconds: number;
}

export interface RehearsalOptions {
  /** A Postgres the Data API server fronts (a schema of its own is made and dropped). */
  databaseUrl: string;
  /** An existing cloud assembly to reuse (else `cdk synth` runs). */
  assemblyDir?: string;
  /** Changes a copy of the template before anything runs (tests: remove a grant, shrink a quota). */
  editTemplate?: (template: CfnTemplate) => void;
  /** Wraps each Task's handler (tests: grow a state's output past its quota). */
  wrapTask?: (state: TaskState, handler: Handler) => Handler;
  /** Which scenarios; default all. */
  scenarios?: string[];
  log?: (line: string) => void;
}

interface World {
  opts: RehearsalOptions;
  assembly: CloudAssembly;
  model: IamModel;
  authorizer: RequestAuthorizer;
  processes: Map<string, LambdaProcess>;
  db: Database;
  dataApi: RdsDataSim;
  violations: QuotaViolation[];
  /** The experiment machine, resolved and bound once (machineOf). */
  machine?: { definition: MachineDefinition; arn: string; handlers: Partial<Record<TaskState, Handler>> };
  close(): Promise<void>;
}

function resourcesOfType(template: CfnTemplate, type: string): Array<[string, Record<string, unknown>]> {
  return Object.entries(template.Resources)
    .filter(([, r]) => r.Type === type)
    .map(([id, r]) => [id, r.Properties ?? {}]);
}

async function startWorld(opts: RehearsalOptions): Promise<World> {
  const assembly = await synthesizeAssembly(opts.assemblyDir);
  const template = structuredClone(assembly.template) as CfnTemplate;
  opts.editTemplate?.(template);
  const model = new IamModel(template);
  const authorizer = new RequestAuthorizer(model);
  const values = model.values;
  const env = values.env;
  const envOf = (fn: AssemblyFunction) =>
    Object.fromEntries(
      Object.entries(fn.environment).map(([k, v]) => [
        k,
        values.resolveString(v, `$.Resources.${fn.logicalId}.Properties.Environment.Variables.${k}`),
      ]),
    );
  const withDatabase = assembly.functions.find((f) => 'DATABASE_CLUSTER_ARN' in f.environment);
  if (!withDatabase) throw new Error('no function of the template names DATABASE_CLUSTER_ARN');
  const dbEnv = envOf(withDatabase);

  const schema = `rehearsal_${randomBytes(4).toString('hex')}`;
  const db = await openDatabase({ url: opts.databaseUrl, schema, migrate: false, poolSize: 2, field: 'DATABASE_URL' });
  await db.pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  const dataApi = new RdsDataSim({
    url: opts.databaseUrl,
    schema,
    clusterArn: dbEnv.DATABASE_CLUSTER_ARN,
    secretArn: dbEnv.DATABASE_SECRET_ARN,
    database: dbEnv.DATABASE_NAME,
    authorizer,
    // a resume takes ~15 s on AWS; shorter here, still several DatabaseResumingException answers
    resumeAfterMs: 3_000,
  });
  const parameters = resourcesOfType(template, 'AWS::SSM::Parameter').map(([id, p]) => ({
    name: values.resolveString(p.Name, `$.Resources.${id}.Properties.Name`),
    value: values.resolveString(p.Value, `$.Resources.${id}.Properties.Value`),
    type: p.Type as 'String',
  }));
  const ssm = new SsmSim(parameters, { authorizer });
  const bedrock = new BedrockSim({ authorizer, models: DEFAULT_BEDROCK_MODELS });
  const endpoints = {
    AWS_ENDPOINT_URL_RDS_DATA: await dataApi.listen(),
    AWS_ENDPOINT_URL_SSM: await ssm.listen(),
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME: await bedrock.listen(),
  };

  const processes = new Map<string, LambdaProcess>();
  const violations: QuotaViolation[] = [];
  const close = async () => {
    await Promise.all([...processes.values()].map((p) => p.stop()));
    await dataApi.close();
    await ssm.close();
    await bedrock.close();
    await db.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.close();
  };
  try {
    for (const fn of assembly.functions) {
      processes.set(
        fn.logicalId,
        await LambdaProcess.start({
          fn,
          env: envOf(fn),
          accessKeyId: model.principal(fn.logicalId).accessKeyId,
          secretAccessKey: 'rehearsal-secret',
          region: env.region,
          accountId: env.account,
          functionName: values.physicalName(fn.logicalId),
          endpoints,
        }),
      );
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { opts, assembly, model, authorizer, processes, db, dataApi, violations, close };
}

/** The parts of a state machine definition (ASL) the rehearsal reads. */
interface MachineDefinition {
  States: Record<string, { Type?: string; Resource?: string }>;
}

/** The experiment machine of the template: its definition (resolved), ARN and Task handlers, made on first use. */
function machineOf(world: World): NonNullable<World['machine']> {
  if (world.machine) return world.machine;
  const template = world.model.values.template;
  const found = resourcesOfType(template, 'AWS::StepFunctions::StateMachine').find(([id]) =>
    id.startsWith('Experiments'),
  );
  if (!found) throw new Error('the template has no Experiments state machine');
  const [id, props] = found;
  const definition = JSON.parse(
    world.model.values.resolveString(props.DefinitionString, `$.Resources.${id}.Properties.DefinitionString`),
  ) as MachineDefinition;
  world.machine = { definition, arn: world.model.values.ref(id), handlers: taskHandlers(world, definition) };
  return world.machine;
}

/** Counts a payload over Step Functions' limit and fails the state as the service does (States.DataLimitExceeded). */
function payloadCheck(world: World, where: string, value: unknown): void {
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? 'null');
  if (bytes <= STATE_PAYLOAD_LIMIT) return;
  world.violations.push({ quota: 'state payload (256 KiB)', where, bytes, limit: STATE_PAYLOAD_LIMIT });
  throw Object.assign(new Error(`${where} is ${bytes} bytes, over the ${STATE_PAYLOAD_LIMIT}-byte limit`), {
    name: 'States.DataLimitExceeded',
  });
}

/** Each Task state bound to the process of the function its Resource names (the template's wiring, not ours). */
function taskHandlers(world: World, definition: MachineDefinition): Partial<Record<TaskState, Handler>> {
  const byArn = new Map(
    [...world.processes.values()].map((p) => [world.model.values.attribute(p.fn.logicalId, 'Arn'), p]),
  );
  const out: Partial<Record<TaskState, Handler>> = {};
  for (const state of TASK_STATES) {
    const resource = definition.States[state]?.Resource;
    const process = resource ? byArn.get(resource) : undefined;
    if (!process) throw new Error(`Task ${state}: its Resource ${resource ?? '(none)'} is no function of the stack`);
    const invoke: Handler = async (event) => {
      const result = await process.invoke(event);
      if (!result.ok) throw Object.assign(new Error(result.errorMessage), { name: result.errorType });
      return result.result;
    };
    const handler = world.opts.wrapTask?.(state, invoke) ?? invoke;
    out[state] = async (event) => {
      payloadCheck(world, `${state} input`, event);
      const result = await handler(event);
      payloadCheck(world, `${state} result`, result);
      return result;
    };
  }
  return out;
}

async function migrate(world: World): Promise<void> {
  const fn = world.assembly.functions.find((f) => 'MIGRATIONS_DIR' in f.environment);
  if (!fn) throw new Error('the template has no migrations function (MIGRATIONS_DIR)');
  const result = await world.processes.get(fn.logicalId)!.invoke({ RequestType: 'Create' });
  if (!result.ok) throw new Error(`the migrations custom resource failed: ${result.errorType}: ${result.errorMessage}`);
}

type Scenario = (world: World) => Promise<string>;

/** Runs one experiment through the template's machine; returns its row and its executions. */
async function experiment(
  world: World,
  label: string,
  request: Record<string, unknown>,
): Promise<{ id: string; status: string; goal_found: boolean; actions_taken: number; executions: string[] }> {
  const { definition, arn, handlers } = machineOf(world);
  const name = `rehearsal-${label}-${randomBytes(3).toString('hex')}`;
  const input = { ...request, experimentId: name };
  payloadCheck(world, 'execution input', input);
  const run = await runLocalExecution(input, {
    deps: { now: () => new Date() },
    taskHandlers: handlers,
    definition,
    stateMachineArn: arn,
    executionName: name,
  });
  const { rows } = await world.db.pool.query<{ status: string; goal_found: boolean; actions_taken: number }>(
    'SELECT status, goal_found, actions_taken FROM experiments WHERE id = $1',
    [name],
  );
  if (!rows[0]) throw new Error(`experiment ${name} is not in the database`);
  return { id: name, ...rows[0], executions: run.executions };
}

/** Fails unless the experiment reached the goal. */
function toGoal(row: { id: string; status: string; goal_found: boolean }): void {
  if (row.status !== 'completed' || !row.goal_found)
    throw new Error(`experiment ${row.id} ended ${row.status}, goal found: ${row.goal_found}`);
}

const SCENARIOS: Record<string, Scenario> = {
  async baseline(world) {
    const row = await experiment(world, 'baseline', {
      agent: 'frontier',
      maze: { generator: 'medium', size: 15, seed: 3 },
    });
    if (row.status !== 'completed' || !row.goal_found)
      throw new Error(`experiment ${row.id} ended ${row.status}, goal found: ${row.goal_found}`);
    return `frontier agent to the goal in ${row.actions_taken} actions`;
  },
  async bedrock(world) {
    // A model of the stack's default list, with the config's defaults: as a researcher would launch it.
    const row = await experiment(world, 'bedrock', {
      agent: 'bedrock',
      model: DEFAULT_BEDROCK_MODELS[0],
      maze: { generator: 'medium', size: 9, seed: 3 },
      config: { max_moves: 200 },
    });
    toGoal(row);
    return `Bedrock agent (${DEFAULT_BEDROCK_MODELS[0]}) to the goal in ${row.actions_taken} actions`;
  },
  async 'continue-as-new'(world) {
    // the smallest history budget (20 events): one turn per execution, every later turn a new execution
    const row = await experiment(world, 'hops', {
      agent: 'frontier',
      maze: { generator: 'medium', size: 15, seed: 3 },
      config: { history_event_budget: 20 },
    });
    toGoal(row);
    if (row.executions.length < 3) throw new Error(`only ${row.executions.length} executions: expected at least 3`);
    const { rows } = await world.db.pool.query<{ n: number }>(
      'SELECT cardinality(execution_arns) AS n FROM experiments WHERE id = $1',
      [row.id],
    );
    if (rows[0].n !== row.executions.length)
      throw new Error(`${row.executions.length} executions ran, ${rows[0].n} recorded`);
    return `${row.executions.length} executions (continued as new), to the goal in ${row.actions_taken} actions`;
  },
  async abort(world) {
    // An execution aborted after StartExperiment: EventBridge's status-change event reaches the finalizer, which
    // marks the experiment failed (lib/failure-handling.ts), with the finalizer's own grants.
    const { arn, handlers } = machineOf(world);
    const name = `rehearsal-abort-${randomBytes(3).toString('hex')}`;
    const executionArn = `${arn.replace(':stateMachine:', ':execution:')}:${name}`;
    const request = { agent: 'frontier', maze: { generator: 'medium', size: 9, seed: 3 }, experimentId: name };
    await handlers.StartExperiment!({ request, executionArn });
    const finalizer = world.assembly.functions.find((f) => f.logicalId.startsWith('FailureHandlingFinalizer'));
    if (!finalizer) throw new Error('the template has no EventBridge finalizer function');
    const env = world.model.values.env;
    const event = {
      version: '0',
      id: randomBytes(16).toString('hex'),
      'detail-type': 'Step Functions Execution Status Change',
      source: 'aws.states',
      account: env.account,
      time: new Date().toISOString(),
      region: env.region,
      resources: [executionArn],
      detail: {
        executionArn,
        stateMachineArn: arn,
        name,
        status: 'ABORTED',
        startDate: Date.now() - 1000,
        stopDate: Date.now(),
        input: JSON.stringify(request),
        output: null,
        inputDetails: { included: true },
        outputDetails: null,
        error: null,
        cause: null,
      },
    };
    const result = await world.processes.get(finalizer.logicalId)!.invoke(event);
    if (!result.ok) throw new Error(`the finalizer failed: ${result.errorType}: ${result.errorMessage}`);
    const { rows } = await world.db.pool.query<{ status: string; stop_reason: string }>(
      'SELECT status, stop_reason FROM experiments WHERE id = $1',
      [name],
    );
    if (rows[0]?.status !== 'failed' || rows[0].stop_reason !== 'execution_aborted')
      throw new Error(`the aborted experiment is ${rows[0]?.status ?? 'missing'} (${rows[0]?.stop_reason ?? '-'})`);
    return 'an aborted execution finalized by its EventBridge event: failed, execution_aborted';
  },
  async resume(world) {
    // Aurora paused at 0 ACU: the first Data API calls answer DatabaseResumingException until it is up
    await world.dataApi.pause();
    const row = await experiment(world, 'resume', {
      agent: 'frontier',
      maze: { generator: 'medium', size: 9, seed: 3 },
    });
    toGoal(row);
    if (world.dataApi.isPaused) throw new Error('the database never resumed');
    return `the paused database resumed under StartExperiment; to the goal in ${row.actions_taken} actions`;
  },
};

export async function rehearse(opts: RehearsalOptions): Promise<RehearsalReport> {
  const started = Date.now();
  const log = opts.log ?? (() => undefined);
  const world = await startWorld(opts);
  const scenarios: ScenarioResult[] = [];
  try {
    await migrate(world);
    for (const name of opts.scenarios ?? Object.keys(SCENARIOS)) {
      const scenario = SCENARIOS[name];
      if (!scenario) throw new Error(`no scenario "${name}"; the scenarios are ${Object.keys(SCENARIOS).join(', ')}`);
      try {
        scenarios.push({ name, pass: true, detail: await scenario(world) });
      } catch (err) {
        scenarios.push({ name, pass: false, detail: `${(err as Error).name}: ${(err as Error).message}` });
      }
      log(`scenario ${name}: ${scenarios.at(-1)!.pass ? 'pass' : 'FAIL'}`);
    }
  } finally {
    await world.close();
  }
  const calls: RehearsalReport['calls'] = {};
  for (const [principal, actions] of world.authorizer.counts) calls[principal] = Object.fromEntries(actions);
  return {
    calls,
    denials: world.authorizer.denials,
    violations: world.violations,
    scenarios,
    notes: [
      'Lambda runs locally: no cold-start latency, no concurrency limits, no network between services',
      'CloudWatch Logs and X-Ray calls are not made by the bundles and not rehearsed',
    ],
    seconds: (Date.now() - started) / 1000,
  };
}

/** The report as the table `npm run rehearse` prints. */
export function formatReport(r: RehearsalReport): string {
  const lines = ['AWS calls by function (action: count)'];
  for (const [fn, actions] of Object.entries(r.calls).sort())
    lines.push(
      `  ${fn.padEnd(40)} ${Object.entries(actions)
        .map(([a, n]) => `${a}: ${n}`)
        .join(', ')}`,
    );
  lines.push(`denials: ${r.denials.length} (goal 0)`);
  for (const d of r.denials) lines.push(`  ${d.principal} may not ${d.action} on ${d.resource}: ${d.explanation}`);
  lines.push(`quota violations: ${r.violations.length} (goal 0)`);
  for (const v of r.violations) lines.push(`  ${v.quota}: ${v.where} is ${v.bytes} bytes (limit ${v.limit})`);
  lines.push('scenarios');
  for (const s of r.scenarios) lines.push(`  ${s.pass ? 'pass' : 'FAIL'}  ${s.name.padEnd(12)} ${s.detail}`);
  lines.push('not rehearsed:');
  for (const n of r.notes) lines.push(`  ${n}`);
  lines.push(`${r.seconds.toFixed(1)} s`);
  return lines.join('\n');
}

/** Whether the rehearsal passed: no denial, no violation, every scenario right. */
export function passed(r: RehearsalReport): boolean {
  return r.denials.length === 0 && r.violations.length === 0 && r.scenarios.every((s) => s.pass);
}
