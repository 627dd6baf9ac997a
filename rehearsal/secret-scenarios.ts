// The database secret rotated mid-experiment: the Data API reads the secret on every call, so the turns after
// the rotation connect with the new password, and nothing in the functions may hold the old one.
import pg from 'pg';
import { experiment, toGoal, type Scenario } from './run-experiment.ts';
import { urlWithSecret, type DatabaseSecret } from '../simulators/rds-data-sim.ts';
import { STATES } from '../core/machine/states.ts';

export const SECRET_SCENARIOS: Record<string, Scenario> = {
  async 'secret-rotation'(world) {
    // The cluster's secret rotated mid-experiment. The Data API reads the secret on every call, so the
    // turns after the rotation connect with the new password; the experiment must not notice.
    const rotated: { done?: { afterTurn: number; previous: DatabaseSecret; current: DatabaseSecret } } = {};
    const row = await experiment(
      world,
      'rotation',
      { agent: 'frontier', maze: { generator: 'medium', size: 15, seed: 3 } },
      undefined,
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
class SecretRotationCheckError extends Error {
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
