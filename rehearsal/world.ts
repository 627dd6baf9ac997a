// The rehearsal's world: the synthesized stack's functions running as child
// processes with the template's environment, the local AWS servers they call
// (each authorizing every request against the caller's role policies), the
// database the Data API server fronts, and the quotas checked on the way.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { synthesizeAssembly, type CloudAssembly, type AssemblyFunction } from './cloud-assembly.ts';
import { LambdaProcess, MAX_SYNC_REQUEST_BYTES, MAX_SYNC_RESPONSE_BYTES, taskError } from './lambda-process.ts';
import { IamModel } from './iam.ts';
import { RequestAuthorizer } from './authorizer.ts';
import type { CfnTemplate } from '../lib/template-values.ts';
import type { Database } from '../core/store/database.ts';
import { openSqlDatabase } from '../core/store/open-sql-database.ts';
import { SecretsManagerSim } from '../simulators/secrets-manager-sim.ts';
import { RdsDataSim } from '../simulators/rds-data-sim.ts';
import { SsmSim } from '../simulators/ssm-sim.ts';
import { BedrockSim } from '../simulators/bedrock-sim.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import { OpenAISim } from '../simulators/openai-sim.ts';

/** The key the OpenAI-compatible server accepts: the openai scenario stores it as a SecureString, as a user would. */
export const REHEARSAL_OPENAI_KEY = 'sk-rehearsal-openai-key';
import { S3Sim } from '../simulators/s3-sim.ts';
import { SfnSim } from '../simulators/sfn-sim.ts';
import { LambdaSim } from '../simulators/lambda-sim.ts';
import { RdsSim } from '../simulators/rds-sim.ts';
import { ServiceQuotasSim } from '../simulators/service-quotas-sim.ts';
import { networkInterfaces } from 'node:os';
import pg from 'pg';
import { DEFAULT_BEDROCK_MODELS } from '../lib/ariadne-stack.ts';
import { TASK_STATES, type TaskState } from '../core/machine/states.ts';
import type { Handler } from '../functions/deps.ts';
import { fact } from '../aws-facts/facts.ts';

/** Step Functions' limit on a state's input and output, an execution's input and a task's result. */
export const STATE_PAYLOAD_LIMIT = fact('sfn.max-payload-bytes').value;

export interface QuotaViolation {
  quota: string;
  where: string;
  /** What was measured (bytes, characters, events, seconds) against the limit, in `unit`. */
  measured: number;
  limit: number;
  unit: string;
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

export interface World {
  opts: RehearsalOptions;
  assembly: CloudAssembly;
  model: IamModel;
  authorizer: RequestAuthorizer;
  processes: Map<string, LambdaProcess>;
  db: Database;
  dataApi: RdsDataSim;
  /** The local servers the bundles call (Ollama is not AWS: it authorizes nothing). */
  sims: {
    ssm: SsmSim;
    bedrock: BedrockSim;
    s3: S3Sim;
    sfn: SfnSim;
    ollama: OllamaSim;
    /** An OpenAI-compatible server that checks its key (the key is a SecureString under /ariadne-secrets). */
    openai: OpenAISim;
    /** Lambda's GetAccountSettings: the account's concurrency, settable (a new account's is low). */
    lambda: LambdaSim;
    serviceQuotas: ServiceQuotasSim;
    /** The database's secrets: the master user's and the researchers' read-only role's. */
    secretsManager: SecretsManagerSim;
    /** RDS's control plane: the clusters a simulated deploy creates (scenario-failed-first-deploy.ts). */
    rds: RdsSim;
  };
  /** The read-only role's secret, as the stack names it and as the migrations' function reads it. */
  reader: { arn: string; username: string };
  /** Where each AWS server listens, by the environment variable the bundles get it in (AWS_ENDPOINT_URL_S3...). */
  endpoints: Record<'AWS_ENDPOINT_URL_S3' | 'AWS_ENDPOINT_URL_SFN', string> & Record<string, string>;
  /** Where the Ollama server listens: an address of this machine that is not loopback (Lambda refuses loopback). */
  ollamaUrl: string | null;
  /** Where the OpenAI-compatible server listens (its /v1 base URL), on the same address as Ollama's. */
  openaiUrl: string | null;
  violations: QuotaViolation[];
  /** The experiment machine, resolved and bound once (machineOf). */
  machine?: {
    logicalId: string;
    definition: MachineDefinition;
    arn: string;
    handlers: Partial<Record<TaskState, Handler>>;
    /**
     * Its Express turn machine (nested orchestration), registered with the Step Functions server: a chunk's run is
     * left in `runs` under the name its StartSyncExecution gives, and the server's run of that name takes it.
     */
    chunks?: ChunkMachine;
  };
  close(): Promise<void>;
}

export function resourcesOfType(template: CfnTemplate, type: string): Array<[string, Record<string, unknown>]> {
  return Object.entries(template.Resources)
    .filter(([, r]) => r.Type === type)
    .map(([id, r]) => [id, r.Properties ?? {}]);
}

/**
 * An address of this machine other than loopback, for the Ollama server: inside Lambda a loopback host is the
 * function itself, so StartExperiment refuses one, and the rehearsal must not pass by being lenient about it.
 */
function reachableAddress(): string | null {
  const addresses = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !a.internal && !a.address.startsWith('fe80:'));
  return (addresses.find((a) => a!.family === 'IPv4') ?? addresses[0])?.address ?? null;
}

const { escapeIdentifier, escapeLiteral } = pg;

export async function startWorld(opts: RehearsalOptions): Promise<World> {
  const assembly = await synthesizeAssembly(opts.assemblyDir);
  const template = structuredClone(assembly.template) as CfnTemplate;
  opts.editTemplate?.(template);
  const model = new IamModel(template);
  const authorizer = new RequestAuthorizer(model);
  const values = model.values;
  const envOf = (fn: AssemblyFunction) => resolvedEnvironment(values, fn);
  const withDatabase = assembly.functions.find((f) => 'DATABASE_CLUSTER_ARN' in f.environment);
  if (!withDatabase) throw new Error('no function of the template names DATABASE_CLUSTER_ARN');
  const dbEnv = envOf(withDatabase);
  const { db, schema, secret } = await databaseOfOwnRole(opts.databaseUrl);
  // The read-only role's secret, as Secrets Manager generates it; the role itself is made by the migrations' function
  // (core/store/reader-role.ts). Its name is the rehearsal's own: roles are the whole server's, not the schema's.
  const migrateFn = assembly.functions.find((f) => 'DATABASE_READER_SECRET_ARN' in f.environment);
  if (!migrateFn) throw new Error('no function of the template names DATABASE_READER_SECRET_ARN');
  const reader = { arn: envOf(migrateFn).DATABASE_READER_SECRET_ARN, username: `${schema}_reader` };
  const { dataApi, sims, endpoints, ollamaUrl, openaiUrl } = await startServers(opts, template, model, authorizer, {
    dbEnv,
    schema,
    secret,
    reader,
  });
  const processes = notStartedFunctions(assembly, model, envOf, endpoints);
  const close = async () => {
    await Promise.all([...processes.values()].map((p) => p.stop()));
    await dataApi.close();
    await Promise.all(Object.values(sims).map((sim) => sim.close()));
    await dropSchemaAndRole(db, schema, secret.username);
    await dropRole(db, reader.username);
    await db.close();
  };
  return {
    opts,
    assembly,
    model,
    authorizer,
    processes,
    db,
    dataApi,
    reader,
    endpoints,
    sims,
    ollamaUrl,
    openaiUrl,
    violations: [],
    close,
  };
}

/** A function's environment as the template gives it, every value resolved. */
function resolvedEnvironment(values: IamModel['values'], fn: AssemblyFunction): Record<string, string> {
  return Object.fromEntries(
    Object.entries(fn.environment).map(([k, v]) => [
      k,
      values.resolveString(v, `$.Resources.${fn.logicalId}.Properties.Environment.Variables.${k}`),
    ]),
  );
}

/**
 * The rehearsal's schema, owned by a LOGIN role of its own (random name and password): the database secret's user.
 * `db` reads as the url's own user.
 */
async function databaseOfOwnRole(
  databaseUrl: string,
): Promise<{ db: Database; schema: string; secret: { username: string; password: string } }> {
  // As on AWS, the functions reach the database as the user of the cluster's secret, not as a superuser: a LOGIN
  // role of the rehearsal's own (random name and password), owner of the rehearsal's schema, so the migrations and
  // every experiment run with its privileges and the secret can be rotated (the secret-rotation scenario). The
  // secret's user is the cluster's master user, which Aurora makes "a member of the rds_superuser group" and
  // creates as `CREATE ROLE postgres WITH LOGIN NOSUPERUSER INHERIT CREATEDB CREATEROLE ...`; rds_superuser may "Add
  // extensions that are available for use with Aurora PostgreSQL" (AuroraUserGuide/
  // Appendix.PostgreSQL.CommonDBATasks.Roles.rds_superuser.html). Here it gets those attributes and what owning the
  // database gives (CREATE on it and on its public schema), which is what PostgreSQL asks of a trusted extension's
  // creator (pg_trgm, migration 018); an untrusted extension would fail here though Aurora allows it: stricter, not
  // lenient. Before, the role could create no extension, and the suite passed only because an earlier test had
  // made pg_trgm as superuser: a fresh server (npm run bench, npm run rehearse) failed the migrations.
  // `db`, which the scenarios read the rows with, stays the url's own user.
  const schema = `rehearsal_${randomBytes(4).toString('hex')}`;
  const secret = { username: schema, password: randomBytes(24).toString('hex') };
  const target = { url: databaseUrl, schema, migrate: false, poolSize: 2, field: 'DATABASE_URL' };
  const db = await openSqlDatabase(target);
  try {
    const role = escapeIdentifier(secret.username);
    const password = escapeLiteral(secret.password);
    await db.pool.query(`CREATE ROLE ${role} WITH LOGIN NOSUPERUSER INHERIT CREATEDB CREATEROLE PASSWORD ${password}`);
    const { rows } = await db.pool.query<{ name: string }>('SELECT current_database() AS name');
    await db.pool.query(`GRANT CREATE ON DATABASE ${escapeIdentifier(rows[0].name)} TO ${role}`);
    await db.pool.query(`GRANT CREATE ON SCHEMA public TO ${role}`);
    await db.pool.query(`CREATE SCHEMA "${schema}" AUTHORIZATION ${escapeIdentifier(secret.username)}`);
  } catch (err) {
    await dropSchemaAndRole(db, schema, secret.username);
    await db.close();
    throw err;
  }
  return { db, schema, secret };
}

/** The local servers the bundles call, listening, with where each listens. */
async function startServers(
  opts: RehearsalOptions,
  template: CfnTemplate,
  model: IamModel,
  authorizer: RequestAuthorizer,
  database: {
    dbEnv: Record<string, string>;
    schema: string;
    secret: { username: string; password: string };
    reader: World['reader'];
  },
): Promise<Pick<World, 'dataApi' | 'sims' | 'endpoints' | 'ollamaUrl' | 'openaiUrl'>> {
  const { dbEnv, schema, secret, reader } = database;
  const values = model.values;
  const env = values.env;
  const secretsManager = new SecretsManagerSim({ authorizer });
  secretsManager.put(dbEnv.DATABASE_SECRET_ARN, secret);
  secretsManager.put(reader.arn, { username: reader.username, password: randomBytes(24).toString('hex') });
  const dataApi = new RdsDataSim({
    url: opts.databaseUrl,
    schema,
    secret,
    otherSecrets: (arn) => (arn === dbEnv.DATABASE_SECRET_ARN ? undefined : secretsManager.databaseSecret(arn)),
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
  const bedrockUrl = await bedrock.listen();
  const s3 = new S3Sim({ authorizer });
  for (const [id, p] of resourcesOfType(template, 'AWS::S3::Bucket'))
    s3.buckets.add(values.resolveString(p.BucketName ?? { Ref: id }, `$.Resources.${id}.Properties.BucketName`));
  const sfn = new SfnSim({ authorizer });
  const lambda = new LambdaSim({ authorizer });
  const serviceQuotas = new ServiceQuotasSim(undefined, { authorizer });
  const rds = new RdsSim({ authorizer, region: env.region, account: env.account });
  const ollama = new OllamaSim();
  const openai = new OpenAISim({ apiKey: REHEARSAL_OPENAI_KEY });
  const ollamaHost = reachableAddress();
  const endpoints = {
    AWS_ENDPOINT_URL_RDS_DATA: await dataApi.listen(),
    AWS_ENDPOINT_URL_SSM: await ssm.listen(),
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrockUrl,
    // the control plane (GetFoundationModel): the simulator's second, HTTP/1.1 port
    AWS_ENDPOINT_URL_BEDROCK: bedrock.controlPlaneUrl,
    AWS_ENDPOINT_URL_S3: await s3.listen(),
    AWS_ENDPOINT_URL_SFN: await sfn.listen(),
    AWS_ENDPOINT_URL_LAMBDA: await lambda.listen(),
    AWS_ENDPOINT_URL_SERVICE_QUOTAS: await serviceQuotas.listen(),
    AWS_ENDPOINT_URL_SECRETS_MANAGER: await secretsManager.listen(),
    AWS_ENDPOINT_URL_RDS: await rds.listen(),
  };
  const ollamaUrl = ollamaHost ? await ollama.listen(0, ollamaHost) : null;
  const openaiUrl = ollamaHost ? `${await openai.listen(0, ollamaHost)}/v1` : null;
  const sims = { ssm, bedrock, s3, sfn, ollama, openai, lambda, serviceQuotas, secretsManager, rds };
  return { dataApi, sims, endpoints, ollamaUrl, openaiUrl };
}

/**
 * Each function's container starts at its first invocation, as on Lambda: a rehearsal of a few scenarios starts
 * the few functions they call (a process of 0.3-0.5 s of CPU each), not all of them.
 */
function notStartedFunctions(
  assembly: CloudAssembly,
  model: IamModel,
  envOf: (fn: AssemblyFunction) => Record<string, string>,
  endpoints: World['endpoints'],
): Map<string, LambdaProcess> {
  const processes = new Map<string, LambdaProcess>();
  const env = model.values.env;
  for (const fn of assembly.functions)
    processes.set(
      fn.logicalId,
      LambdaProcess.notStarted({
        fn,
        env: envOf(fn),
        accessKeyId: model.principal(fn.logicalId).accessKeyId,
        secretAccessKey: 'rehearsal-secret',
        region: env.region,
        accountId: env.account,
        functionName: model.values.physicalName(fn.logicalId),
        endpoints,
      }),
    );
  return processes;
}

/** Drops the rehearsal's schema, then its role (DROP OWNED: whatever else it was granted in this database). */
async function dropSchemaAndRole(db: Database, schema: string, role: string): Promise<void> {
  await db.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await dropRole(db, role);
}

async function dropRole(db: Database, role: string): Promise<void> {
  const { rowCount } = await db.pool.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
  if (!rowCount) return;
  // what the role made outside its schema (pg_trgm, when it was the first to make it) stays, now the url user's:
  // other schemas' indexes may use it; then its grants go
  await db.pool.query(`REASSIGN OWNED BY ${escapeIdentifier(role)} TO CURRENT_USER`);
  await db.pool.query(`DROP OWNED BY ${escapeIdentifier(role)}`);
  await db.pool.query(`DROP ROLE ${escapeIdentifier(role)}`);
}

/** The parts of a state machine definition (ASL) the rehearsal reads. */
interface MachineDefinition {
  States: Record<string, { Type?: string; Resource?: string }>;
}

/** The state machine of the template whose logical id starts with `prefix`: its id, ARN and resolved definition. */
export function templateMachine<D>(world: World, prefix: string): { logicalId: string; arn: string; definition: D } {
  const found = resourcesOfType(world.model.values.template, 'AWS::StepFunctions::StateMachine').find(([id]) =>
    id.startsWith(prefix),
  );
  if (!found) throw new Error(`the template has no ${prefix} state machine`);
  const [logicalId, props] = found;
  const definition = JSON.parse(
    world.model.values.resolveString(props.DefinitionString, `$.Resources.${logicalId}.Properties.DefinitionString`),
  ) as D;
  return { logicalId, arn: world.model.values.ref(logicalId), definition };
}

/**
 * The nesting as AWS documents it, or the rehearsal stops: the Standard machine's RunChunk starts the Express machine
 * with the resource AWS gives for a nested Express workflow, and the Express machine's Tasks use only the Request
 * Response pattern (no .sync, no .waitForTaskToken).
 */
function nestingCheck(parent: MachineDefinition, chunk: MachineDefinition): void {
  const resource = parent.States.RunChunk?.Resource;
  if (resource !== fact('sfn.nested-express-sync-pattern').value)
    throw new Error(`RunChunk's Resource is ${resource}, not ${fact('sfn.nested-express-sync-pattern').value}`);
  const patterns = fact('sfn.express-integration-patterns').value;
  for (const [name, state] of Object.entries(chunk.States))
    if (state.Resource && /\.(sync(:\d+)?|waitForTaskToken)$/.test(state.Resource))
      throw new Error(
        `the Express machine's ${name} uses ${state.Resource}: Express allows ${patterns.join(', ')} only`,
      );
}

/** The experiment machine's Express turn machine as the rehearsal plays it. */
interface ChunkMachine {
  logicalId: string;
  definition: MachineDefinition;
  arn: string;
  handlers: Partial<Record<TaskState, Handler>>;
  runs: Map<string, (input: unknown) => Promise<unknown>>;
}

/** The experiment machine of the template: its definition (resolved), ARN and Task handlers, made on first use. */
export function machineOf(world: World): NonNullable<World['machine']> {
  if (world.machine) return world.machine;
  const { logicalId, arn, definition } = templateMachine<MachineDefinition>(world, 'ExperimentsMachine');
  world.machine = {
    logicalId,
    definition,
    arn,
    handlers: taskHandlers(world, definition, logicalId, TASK_STATES),
    chunks: definition.States.RunChunk ? chunkMachineOf(world, definition) : undefined,
  };
  return world.machine;
}

/** The Express turn machine, its Tasks invoked with its own role, registered with the Step Functions server. */
function chunkMachineOf(world: World, parent: MachineDefinition): ChunkMachine {
  const { logicalId, arn, definition } = templateMachine<MachineDefinition>(world, 'ExperimentsChunksMachine');
  nestingCheck(parent, definition);
  const states = TASK_STATES.filter((s) => definition.States[s]?.Type === 'Task');
  const runs = new Map<string, (input: unknown) => Promise<unknown>>();
  world.sims.sfn.expressMachine(arn, (input, ctx) => {
    const run = runs.get(ctx.name);
    if (!run) throw new Error(`no chunk of the rehearsal is named ${ctx.name}`);
    runs.delete(ctx.name);
    return run(input);
  });
  return { logicalId, definition, arn, handlers: taskHandlers(world, definition, logicalId, states), runs };
}

/** Counts a payload over Step Functions' limit and fails the state as the service does (States.DataLimitExceeded). */
export function payloadCheck(world: World, where: string, value: unknown): void {
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? 'null');
  if (bytes <= STATE_PAYLOAD_LIMIT) return;
  world.violations.push({
    quota: 'state payload (256 KiB)',
    where,
    measured: bytes,
    limit: STATE_PAYLOAD_LIMIT,
    unit: 'bytes',
  });
  throw Object.assign(new Error(`${where} is ${bytes} bytes, over the ${STATE_PAYLOAD_LIMIT}-byte limit`), {
    name: 'States.DataLimitExceeded',
  });
}

/** Counts an invocation Lambda refused or stopped for a quota: its 6 MB payloads and the template's timeout. */
function lambdaQuotaCheck(world: World, state: string, process: LambdaProcess, errorType: string): void {
  const last = process.invocations.at(-1);
  // Lambda.Unknown is any unhandled error (out of memory too): only the record knows the timeout stopped it.
  const kind = last?.timedOut ? 'timeout' : errorType;
  const where = `${state} (${process.fn.logicalId})`;
  const violation = {
    RequestEntityTooLargeException: () => ({
      quota: 'Lambda request (6 MB)',
      measured: last?.requestBytes ?? 0,
      limit: MAX_SYNC_REQUEST_BYTES,
      unit: 'bytes',
    }),
    'Function.ResponseSizeTooLarge': () => ({
      quota: 'Lambda response (6 MB)',
      measured: last?.responseBytes ?? 0,
      limit: MAX_SYNC_RESPONSE_BYTES,
      unit: 'bytes',
    }),
    timeout: () => ({
      quota: 'Lambda timeout (template)',
      measured: Math.round((last?.durationMs ?? 0) / 1000),
      limit: process.fn.timeoutSeconds,
      unit: 's',
    }),
  }[kind];
  if (violation) world.violations.push({ where, ...violation() });
}

const queues = new WeakMap<LambdaProcess, Promise<unknown>>();

/**
 * A function's invocations one after another: the rehearsal runs one container a function, where Lambda would start
 * another for an invocation that comes while one runs (two deliveries of a chunk racing).
 */
function oneAtATime<T>(process: LambdaProcess, invoke: () => Promise<T>): Promise<T> {
  const next = (queues.get(process) ?? Promise.resolve()).then(invoke, invoke);
  queues.set(
    process,
    next.catch(() => undefined),
  );
  return next;
}

/**
 * Each Task state bound to the process of the function its Resource names (the template's wiring, not ours), invoked
 * as Step Functions invokes it: with the machine's role, which must allow lambda:InvokeFunction on the function
 * ("Invoke an AWS Lambda function with Step Functions", IAM policies).
 */
function taskHandlers(
  world: World,
  definition: MachineDefinition,
  machine: string,
  states: readonly TaskState[],
): Partial<Record<TaskState, Handler>> {
  const byArn = new Map(
    [...world.processes.values()].map((p) => [world.model.values.attribute(p.fn.logicalId, 'Arn'), p]),
  );
  const out: Partial<Record<TaskState, Handler>> = {};
  for (const state of states) {
    const resource = definition.States[state]?.Resource;
    const process = resource ? byArn.get(resource) : undefined;
    if (!process) throw new Error(`Task ${state}: its Resource ${resource ?? '(none)'} is no function of the stack`);
    const invoke: Handler = async (event) => {
      if (
        !(await world.authorizer.checkServiceCalls(machine, [{ action: 'lambda:InvokeFunction', resource: resource! }]))
      )
        throw Object.assign(new Error(`${machine} may not invoke ${resource}`), { name: 'Lambda.AWSLambdaException' });
      const result = await oneAtATime(process, () => process.invoke(event));
      if (!result.ok) {
        lambdaQuotaCheck(world, state, process, result.errorType);
        throw taskError(result);
      }
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

/** A custom resource's provider as the template wires CDK's Provider framework around our functions. */
export interface CustomResourceProvider {
  onEvent: LambdaProcess;
  /** Polled after onEvent until it answers IsComplete true; absent: onEvent's answer is the resource's. */
  isComplete?: LambdaProcess;
  /** The waiter state machine's Retry of its isComplete task: the wait between polls, and how many polls follow. */
  intervalSeconds: number;
  maxAttempts: number;
}

/** The provider whose framework function (CDK's, Handler framework.onEvent) has this logical id. */
export function customResourceProvider(world: World, frameworkLogicalId: string): CustomResourceProvider {
  const { values } = world.model;
  const props = values.template.Resources[frameworkLogicalId]?.Properties;
  if (props?.Handler !== 'framework.onEvent')
    throw new Error(`${frameworkLogicalId} is not the framework function of a CDK custom resource provider`);
  const fnOf = (ref: unknown) => {
    const id = (ref as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];
    return id === undefined ? undefined : world.processes.get(id);
  };
  // the framework function's variables in the template, not this process's environment
  const variables = (props.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
  const onEvent = fnOf(variables.USER_ON_EVENT_FUNCTION_ARN);
  if (!onEvent) throw new Error(`the provider ${frameworkLogicalId} names no onEvent function of ours`);
  if (variables.USER_IS_COMPLETE_FUNCTION_ARN === undefined) return { onEvent, intervalSeconds: 0, maxAttempts: 0 };
  const isComplete = fnOf(variables.USER_IS_COMPLETE_FUNCTION_ARN);
  const waiter = (variables.WAITER_STATE_MACHINE_ARN as { Ref?: string } | undefined)?.Ref;
  const machine = waiter ? values.template.Resources[waiter]?.Properties : undefined;
  if (!isComplete || !waiter || !machine)
    throw new Error(`the provider ${frameworkLogicalId} names no isComplete function of ours or no waiter`);
  const definition = JSON.parse(
    values.resolveString(machine.DefinitionString, `$.Resources.${waiter}.Properties.DefinitionString`),
  ) as { States: Record<string, { Retry?: Array<{ IntervalSeconds?: number; MaxAttempts?: number }> }> };
  const retry = definition.States['framework-isComplete-task']?.Retry?.[0];
  if (retry?.IntervalSeconds === undefined || retry.MaxAttempts === undefined)
    throw new Error(`the waiter ${waiter} has no Retry on framework-isComplete-task`);
  return { onEvent, isComplete, intervalSeconds: retry.IntervalSeconds, maxAttempts: retry.MaxAttempts };
}

/** The migrations' provider: the one whose isComplete ships the migrations (MIGRATIONS_DIR). */
function migrationsProvider(world: World): CustomResourceProvider {
  for (const [id, props] of resourcesOfType(world.model.values.template, 'AWS::Lambda::Function')) {
    if (props.Handler !== 'framework.onEvent') continue;
    const provider = customResourceProvider(world, id);
    if (provider.isComplete && 'MIGRATIONS_DIR' in provider.isComplete.fn.environment) return provider;
  }
  throw new Error(
    'the template has no migrations provider (framework.onEvent with an isComplete that has MIGRATIONS_DIR)',
  );
}

/** A custom resource's request failed, as the framework reports it to CloudFormation. */
class CustomResourceFailedError extends Error {
  override readonly name = 'CustomResourceFailedError';
}

/**
 * One request to a custom resource as CloudFormation and CDK's Provider framework run it: our onEvent, then our
 * isComplete right away and again every IntervalSeconds of the template's waiter (times `waitScale`: the rehearsal
 * may shorten the waits, never their count) until it answers IsComplete true, or fails as the framework does after
 * its MaxAttempts ("Operation timed out"). Returns the answer (PhysicalResourceId, Data) and how many polls it took.
 */
export async function invokeCustomResource(
  provider: CustomResourceProvider,
  request: { RequestType: 'Create' | 'Update' | 'Delete'; PhysicalResourceId?: string } & Record<string, unknown>,
  opts: { waitScale?: number; what?: string } = {},
): Promise<{ polls: number; answer: { PhysicalResourceId?: string; Data?: Record<string, string> } }> {
  const failed = (r: { errorType: string; errorMessage: string }) =>
    new CustomResourceFailedError(`the ${opts.what ?? 'custom resource'} failed: ${r.errorType}: ${r.errorMessage}`);
  const started = await provider.onEvent.invoke(request);
  if (!started.ok) throw failed(started);
  const event = { ...request, ...(started.result as object) };
  if (!provider.isComplete) return { polls: 0, answer: started.result as { PhysicalResourceId?: string } };
  for (let poll = 1; poll <= 1 + provider.maxAttempts; poll++) {
    const result = await provider.isComplete.invoke(event);
    if (!result.ok) throw failed(result);
    const answer = result.result as { IsComplete?: boolean; Data?: Record<string, string> };
    if (answer.IsComplete) return { polls: poll, answer: { ...(started.result as object), Data: answer.Data } };
    // the framework's own rule
    if (answer.Data && Object.keys(answer.Data).length > 0)
      throw new CustomResourceFailedError('"Data" is not allowed if "IsComplete" is "False"');
    if (poll <= provider.maxAttempts) await sleep(provider.intervalSeconds * 1000 * (opts.waitScale ?? 1));
  }
  throw new CustomResourceFailedError(
    `the ${opts.what ?? 'custom resource'} failed: Operation timed out (${1 + provider.maxAttempts} polls, ` +
      `${provider.intervalSeconds} s apart)`,
  );
}

/**
 * The migrations custom resource as CloudFormation and CDK's Provider framework run it (invokeCustomResource).
 * Returns how many polls it took and what was applied.
 */
export async function migrate(
  world: World,
  opts: { requestType?: 'Create' | 'Update'; waitScale?: number } = {},
): Promise<{ polls: number; intervalSeconds: number; applied: string[] }> {
  const provider = migrationsProvider(world);
  const requestType = opts.requestType ?? 'Create';
  const request = {
    RequestType: requestType,
    ...(requestType === 'Update' ? { PhysicalResourceId: 'ariadne-migrations' } : {}),
  };
  const { polls, answer } = await invokeCustomResource(provider, request, {
    waitScale: opts.waitScale,
    what: 'migrations custom resource',
  });
  return { polls, intervalSeconds: provider.intervalSeconds, applied: answer.Data?.Applied?.split(',') ?? [] };
}
