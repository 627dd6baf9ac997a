// The rehearsal's scenarios, each checked against the database afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { machineOf, payloadCheck, type World } from './world.ts';
import { DEFAULT_BEDROCK_MODELS } from '../lib/ariadne-stack.ts';
import { runLocalExecution } from '../state-machine/local-runner.ts';
import { urlWithSecret, type DatabaseSecret } from '../simulators/rds-data-sim.ts';
import { STATES, type TaskState } from '../state-machine/states.ts';
import type { Handler } from '../lambdas/handlers/deps.ts';

/** A scenario: what it proved, in a line; it throws when the database says otherwise. */
export type Scenario = (world: World) => Promise<string>;

/** Runs one experiment through the template's machine (`wrap`: around each Task); returns its row and executions. */
export async function experiment(
  world: World,
  label: string,
  request: Record<string, unknown>,
  wrap?: (state: TaskState, handler: Handler) => Handler,
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
    wrap,
  });
  const { rows } = await world.db.pool.query<{ status: string; goal_found: boolean; actions_taken: number }>(
    'SELECT status, goal_found, actions_taken FROM experiments WHERE id = $1',
    [name],
  );
  if (!rows[0]) throw new Error(`experiment ${name} is not in the database`);
  return { id: name, ...rows[0], executions: run.executions };
}

/** Fails unless the experiment reached the goal. */
export function toGoal(row: { id: string; status: string; goal_found: boolean }): void {
  if (row.status !== 'completed' || !row.goal_found)
    throw new Error(`experiment ${row.id} ended ${row.status}, goal found: ${row.goal_found}`);
}

export const SCENARIOS: Record<string, Scenario> = {
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
  async 'secret-rotation'(world) {
    // Issue 17: the cluster's secret rotated mid-experiment. The Data API reads the secret on every call, so the
    // turns after the rotation connect with the new password; the experiment must not notice.
    const rotated: { done?: { afterTurn: number; previous: DatabaseSecret; current: DatabaseSecret } } = {};
    const row = await experiment(
      world,
      'rotation',
      { agent: 'frontier', maze: { generator: 'medium', size: 15, seed: 3 } },
      (state, handler) =>
        state !== STATES.InvokeBaselineAgent
          ? handler
          : async (event) => {
              const result = await handler(event);
              if (!rotated.done) {
                const { turnNumber } = event as { turnNumber: number };
                rotated.done = { afterTurn: turnNumber, ...(await world.dataApi.rotateSecret()) };
              }
              return result;
            },
    );
    toGoal(row);
    const rotation = rotated.done;
    if (!rotation) throw new SecretRotationCheckError(`experiment ${row.id} completed no turn: nothing was rotated`);
    const { rows } = await world.db.pool.query<{ before: number; after: number }>(
      `SELECT count(*) FILTER (WHERE turn_number <= $2)::int AS before,
              count(*) FILTER (WHERE turn_number > $2)::int AS after
       FROM turns WHERE experiment_id = $1`,
      [row.id, rotation.afterTurn],
    );
    const { before, after } = rows[0];
    if (!before || !after)
      throw new SecretRotationCheckError(
        `experiment ${row.id}: ${before} turns recorded before the rotation (after turn ${rotation.afterTurn}), ` +
          `${after} after it: expected some on both sides`,
      );
    // The migrations ran as the secret's user, not as a superuser: it owns what they made.
    const owner = await world.db.pool.query<{ tableowner: string }>(
      "SELECT tableowner FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'turns'",
    );
    if (owner.rows[0]?.tableowner !== rotation.current.username)
      throw new SecretRotationCheckError(
        `the turns table is owned by ${owner.rows[0]?.tableowner ?? '(none)'}, not by ${rotation.current.username}`,
      );
    // The rotation was real: Postgres refuses the old password (28P01 invalid_password) and takes the new one.
    const url = world.opts.databaseUrl;
    const old = await connectionRefusal(url, rotation.previous);
    if (old === null)
      throw new SecretRotationCheckError(
        `the server at ${new URL(url).host} accepted ${rotation.previous.username}'s old password after the ` +
          'rotation (it does not check passwords: trust authentication?), so the rotation could not be proven ' +
          'on this server; rehearse against one that authenticates by password (the embedded Postgres does)',
      );
    if (old !== '28P01')
      throw new SecretRotationCheckError(`the old password was refused with SQLSTATE ${old}, not 28P01`);
    const current = await connectionRefusal(url, rotation.current);
    if (current !== null) throw new SecretRotationCheckError(`the new password was refused (SQLSTATE ${current})`);
    return (
      `secret rotated after turn ${rotation.afterTurn}: ${before} turns before, ${after} after, to the goal in ` +
      `${row.actions_taken} actions; the old password refused (28P01), the new one accepted`
    );
  },
};

/** What the secret-rotation scenario found wrong. */
export class SecretRotationCheckError extends Error {
  override readonly name = 'SecretRotationCheckError';
}

/** The SQLSTATE with which Postgres refuses a connection as the secret's user, or null when it connects. */
async function connectionRefusal(url: string, secret: DatabaseSecret): Promise<string | null> {
  const client = new pg.Client({ connectionString: urlWithSecret(url, secret), connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (!code) throw err;
    return code;
  }
  await client.end();
  return null;
}
