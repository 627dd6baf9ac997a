// `ariadne doctor --aws`: a deployment checked from the researcher's side, one line per check, each failure
// saying what to fix. Checks run in order and stop where a later one could only repeat an earlier failure (no
// stack, no database to ask).
import { resolveStack } from '../aws-stack.ts';
import { type StackOutputs } from '../../../lib/stack-outputs.ts';
import { commandPrefix } from '../invocation.ts';
import { loadMigrations } from '../../../core/store/migrate.ts';
import { resolveParameters, type ResolvedParameters } from '../../../core/config/parameters.ts';
import { ssmSource } from '../../../core/config/ssm-source.ts';
import { experimentConfigSchema, type ExperimentConfig } from '../../../core/config/experiment-config.ts';
import { bedrockChecks } from './bedrock.ts';
import type { Check } from './check.ts';
import { permissionsCheck } from './permissions.ts';
import type { SqlDatabase } from '../../../core/store/sql.ts';

export interface DoctorOptions {
  stack?: string;
  region?: string;
  /** The Data API database of the stack's outputs (injected so tests and the CLI share the transport's setup). */
  openDatabase: (outputs: StackOutputs) => Promise<SqlDatabase>;
  /** Parameter prefix the stack's functions read (lib/ariadne-stack.ts). */
  parameterPrefix?: string;
  /** Also a one-token Bedrock call per model the deployment grants (costs a fraction of a cent). */
  bedrock?: boolean;
}

const denied = (err: unknown) =>
  /AccessDenied|not authorized/i.test(`${(err as Error).name} ${(err as Error).message}`);
const policyFix = () => `attach the policy ${commandPrefix()} policy researcher prints to your IAM identity`;

export async function doctor(o: DoctorOptions): Promise<Check[]> {
  const checks: Check[] = [];
  let outputs: StackOutputs;
  try {
    outputs = await resolveStack({ stack: o.stack, region: o.region });
  } catch (err) {
    const e = err as Error & { field?: string };
    checks.push({ check: 'stack', ok: false, detail: e.message, fix: e.field ? `see ${e.field}` : undefined });
    return checks;
  }
  checks.push({
    check: 'credentials and Region',
    ok: true,
    detail: `signed requests accepted in ${outputs.region} (account ${outputs.account})`,
  });
  checks.push({
    check: 'stack',
    ok: true,
    detail: `${outputs.stackName}: every output present (database ${outputs.databaseName}, two state machines)`,
  });

  const db = await o.openDatabase(outputs);
  try {
    const started = Date.now();
    try {
      await db.query('SELECT 1');
      const s = (Date.now() - started) / 1000;
      checks.push({
        check: 'database',
        ok: true,
        detail: s > 5 ? `reachable; it was paused and resumed in ${s.toFixed(0)} s` : 'reachable through the Data API',
      });
    } catch (err) {
      checks.push({
        check: 'database',
        ok: false,
        detail: `${(err as Error).name}: ${(err as Error).message}`,
        fix: denied(err) ? policyFix() : 'check the cluster in the RDS console (status, Data API enabled)',
      });
      return checks;
    }
    checks.push(await migrationsCheck(db));
  } finally {
    await db.close();
  }
  const prefix = o.parameterPrefix ?? '/ariadne';
  const parameters = await parametersCheck(outputs, prefix);
  checks.push(parameters.check);
  if (o.bedrock && parameters.config) {
    const models = (parameters.deployment?.bedrock_models ?? '').split(',').filter(Boolean);
    checks.push(...(await bedrockChecks(models, parameters.config.bedrock.region, prefix)));
  } else
    checks.push({
      check: 'Bedrock models',
      ok: true,
      skipped: true,
      detail: o.bedrock ? 'not checked: the parameters could not be read' : 'not checked',
      fix: o.bedrock ? undefined : 'add --bedrock for a one-token call per model the deployment grants',
    });
  checks.push(await permissionsCheck(outputs));
  return checks;
}

async function migrationsCheck(db: SqlDatabase): Promise<Check> {
  const expected = await loadMigrations();
  const latest = expected.at(-1)!;
  try {
    const { rows } = await db.query<{ version: number }>('SELECT max(version)::int AS version FROM schema_migrations');
    const at = rows[0]?.version ?? 0;
    if (at >= latest.version)
      return { check: 'migrations', ok: true, detail: `at the latest, ${latest.version} (${latest.name})` };
    return {
      check: 'migrations',
      ok: false,
      detail: `at ${at}, this version of Ariadne expects ${latest.version} (${latest.name})`,
      fix: 'deploy this version (npx cdk deploy): the migrations run at every deploy',
    };
  } catch (err) {
    return {
      check: 'migrations',
      ok: false,
      detail: `${(err as Error).message}`,
      fix: 'deploy again (npx cdk deploy): the migrations custom resource has not run',
    };
  }
}

/** The parameters check, and what it read when they are valid. */
async function parametersCheck(
  outputs: StackOutputs,
  prefix: string,
): Promise<{ check: Check; config?: ExperimentConfig; deployment?: ResolvedParameters['deployment'] }> {
  const { SSMClient } = await import('@aws-sdk/client-ssm');
  const client = new SSMClient({ region: outputs.region, maxAttempts: 2 });
  try {
    const raw = await ssmSource(client).readAll(prefix);
    if (raw.length === 0)
      return {
        check: {
          check: 'parameters',
          ok: false,
          detail: `none under ${prefix}`,
          fix: 'deploy the stack (it writes every default under the prefix)',
        },
      };
    const resolved = resolveParameters(prefix, raw);
    const config = experimentConfigSchema.parse(resolved.config);
    return {
      check: {
        check: 'parameters',
        ok: true,
        detail: `${raw.length} under ${prefix}, valid; ${Object.keys(resolved.prompts).length} prompt version(s)`,
      },
      config,
      deployment: resolved.deployment,
    };
  } catch (err) {
    return {
      check: {
        check: 'parameters',
        ok: false,
        detail: `${(err as Error).name}: ${(err as Error).message.split('\n')[0]}`,
        fix: denied(err) ? policyFix() : `fix the parameter it names under ${prefix} (aws ssm put-parameter)`,
      },
    };
  } finally {
    client.destroy();
  }
}

/** The local database: reachable, its migrations at the latest. */
export async function localDoctor(db: SqlDatabase): Promise<Check[]> {
  await db.query('SELECT 1');
  return [{ check: 'database', ok: true, detail: `reachable (${db.transport})` }, await migrationsCheck(db)];
}
