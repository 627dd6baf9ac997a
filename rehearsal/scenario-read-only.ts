// The scenario "researcher-read-only": a researcher reads every result with --aws (the researcher scenario), and
// nothing else. Their policy names the read-only role's secret, so whatever SQL they send runs as a role that may
// only SELECT; the master secret and the API keys are out of their reach. Each refusal is provoked on purpose and
// checked here: Postgres refuses the writes, IAM the master secret and the keys.
import { ExecuteStatementCommand, BeginTransactionCommand, RDSDataClient } from '@aws-sdk/client-rds-data';
import { GetParameterCommand, GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import { researcherPolicy } from '../lib/researcher-policy.ts';
import { runAriadne } from './ariadne-process.ts';
import { researcherEnv, stackOutputsOf, stackServer } from './stack-outputs.ts';
import { secretParameterName, SECRET_NAMES } from '../core/config/secrets.ts';
import type { World } from './world.ts';
import type { StackOutputs } from '../lib/stack-outputs.ts';

const PRINCIPAL = 'ReadOnlyResearcher';
const SECRET = 'read-only-researcher-secret';

/** Thrown when a researcher could write, read a key or the master secret, or could not read. */
class ReadOnlyScenarioError extends Error {
  override readonly name = 'ReadOnlyScenarioError';
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new ReadOnlyScenarioError(message);
}

/** The error a call ends with (null when it succeeds). */
async function failure(call: () => Promise<unknown>): Promise<(Error & { $metadata?: unknown }) | null> {
  try {
    await call();
    return null;
  } catch (err) {
    return err as Error;
  }
}

export async function readOnlyScenario(world: World): Promise<string> {
  const { model, authorizer } = world;
  const outputs = stackOutputsOf(model);
  const accessKeyId = model.addPrincipal(PRINCIPAL, researcherPolicy(outputs));
  const region = outputs.region;
  const credentials = { accessKeyId, secretAccessKey: SECRET };
  const cfn = stackServer(outputs, authorizer);
  const dataApi = new RDSDataClient({
    region,
    credentials,
    endpoint: world.endpoints.AWS_ENDPOINT_URL_RDS_DATA,
    maxAttempts: 1,
  });
  const ssm = new SSMClient({ region, credentials, endpoint: world.endpoints.AWS_ENDPOINT_URL_SSM, maxAttempts: 1 });
  try {
    const env = researcherEnv(outputs, accessKeyId, SECRET, {
      AWS_ENDPOINT_URL_CLOUDFORMATION: await cfn.listen(),
      AWS_ENDPOINT_URL_RDS_DATA: world.endpoints.AWS_ENDPOINT_URL_RDS_DATA,
    });
    const sql = (...args: string[]) => runAriadne(['sql', ...args, '--aws', '--stack', outputs.stackName], env);
    const before = await experimentCount(world);
    const writeDenials = await checkCliReadsOnly(world, outputs, sql, before);
    const deleted = await checkDataApiRefusesWrites(world, outputs, dataApi, before);
    const keyDenials = await checkKeysUnreadable(world, ssm);
    const provoked = writeDenials + keyDenials;
    return (
      `reads as the read-only role (${before} experiments); CREATE TABLE refused by the read-only transaction; ` +
      `--write refused the master secret; DELETE and DROP TABLE refused by Postgres (${deleted.slice(0, 40)}` +
      `...); ${SECRET_NAMES.length} keys refused by IAM, none under /ariadne; ${provoked} denials provoked`
    );
  } finally {
    dataApi.destroy();
    ssm.destroy();
    await cfn.close();
  }
}

/** The experiments in the world's database (its own connection). */
async function experimentCount(world: World): Promise<number> {
  return (await world.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM experiments')).rows[0].n;
}

/** Whether the table a researcher's write would create exists (0 or 1). */
async function intruderTables(world: World): Promise<number> {
  return (
    await world.db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'intruder'")
  ).rows[0].n;
}

/**
 * `ariadne sql --aws` reads as the read-only role, is refused a write by the read-only transaction, and --write is
 * refused the master secret; the denials that provoked.
 */
async function checkCliReadsOnly(
  world: World,
  outputs: StackOutputs,
  sql: (...args: string[]) => ReturnType<typeof runAriadne>,
  before: number,
): Promise<number> {
  // reading works as the read-only role
  const read = await sql('SELECT count(*)::int AS n FROM experiments', '--json');
  check(read.code === 0, `sql --aws could not read: ${read.stderr.trim().split('\n').at(-1)}`);
  check(
    (JSON.parse(read.stdout) as Array<{ n: number }>)[0]?.n === before,
    `sql --aws read ${read.stdout.trim()}, the database has ${before} experiments`,
  );

  // a write without --write: the read-only transaction refuses it, whatever the role could do
  const create = await sql('CREATE TABLE intruder (a int)');
  check(create.code === 2 && /ariadne sql reads/.test(create.stderr), `sql --aws CREATE TABLE: ${create.stderr}`);

  // --write names the master secret, which the researcher policy does not grant
  const written = await world.authorizer.expectingDenials(() => sql('--write', 'CREATE TABLE intruder (a int)'));
  check(written.result.code !== 0, 'sql --aws --write as a researcher exited 0');
  check(
    written.denied.some(
      (d) => d.action === 'secretsmanager:GetSecretValue' && d.resource === outputs.databaseSecretArn,
    ),
    `sql --aws --write was not refused the master secret: ${JSON.stringify(written.denied)}`,
  );
  return written.denied.length;
}

/**
 * Straight at the Data API with the role's own secret, past the CLI: a read-write transaction, then a delete, and a
 * DROP TABLE, each refused by Postgres, nothing reaching the database; the DELETE's error.
 */
async function checkDataApiRefusesWrites(
  world: World,
  outputs: StackOutputs,
  dataApi: RDSDataClient,
  before: number,
): Promise<string> {
  const target = {
    resourceArn: outputs.databaseClusterArn,
    secretArn: outputs.databaseReaderSecretArn,
    database: outputs.databaseName,
  };
  const { transactionId } = await dataApi.send(new BeginTransactionCommand(target));
  await dataApi.send(new ExecuteStatementCommand({ ...target, transactionId, sql: 'SET TRANSACTION READ WRITE' }));
  const deleted = await failure(() =>
    dataApi.send(new ExecuteStatementCommand({ ...target, transactionId, sql: 'DELETE FROM experiments' })),
  );
  check(
    deleted?.name === 'DatabaseErrorException' && /permission denied|42501/.test(deleted.message),
    `DELETE as the read-only role: ${deleted ? `${deleted.name}: ${deleted.message}` : 'it ran'}`,
  );
  const dropped = await failure(() =>
    dataApi.send(new ExecuteStatementCommand({ ...target, sql: 'DROP TABLE actions' })),
  );
  check(dropped?.name === 'DatabaseErrorException', `DROP TABLE as the read-only role: ${dropped?.message ?? 'ran'}`);
  check(
    (await intruderTables(world)) === 0 && (await experimentCount(world)) === before,
    'a write of the researcher reached the database',
  );
  return deleted!.message;
}

/** The keys: not by name, and not through the settings' path; the denials that provoked. */
async function checkKeysUnreadable(world: World, ssm: SSMClient): Promise<number> {
  const keyReads = await world.authorizer.expectingDenials(() =>
    Promise.all(
      SECRET_NAMES.map((name) =>
        failure(() =>
          ssm.send(new GetParameterCommand({ Name: secretParameterName('/ariadne', name), WithDecryption: true })),
        ),
      ),
    ),
  );
  check(
    keyReads.result.every((e) => e?.name === 'AccessDeniedException') && keyReads.denied.length === SECRET_NAMES.length,
    `a researcher's GetParameter of the keys: ${keyReads.result.map((e) => e?.name ?? 'read').join(', ')}`,
  );
  const settings = await ssm.send(
    new GetParametersByPathCommand({ Path: '/ariadne', Recursive: true, WithDecryption: true, MaxResults: 10 }),
  );
  check(
    !(settings.Parameters ?? []).some((p) => p.Type === 'SecureString'),
    "a researcher's GetParametersByPath of /ariadne returned a SecureString",
  );
  return keyReads.denied.length;
}
