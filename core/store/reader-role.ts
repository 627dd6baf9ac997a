// The researchers' database role: it may read the results (every table and view of the schema) and nothing else.
// Made (or its password set again) after the migrations at every deploy, with the password of its own secret, so
// `--aws` results commands connect as it and any write fails in Postgres, whatever the SQL.
import type { Sql } from './sql.ts';

export interface ReaderCredentials {
  username: string;
  password: string;
}

/** A name Postgres takes unquoted, so it can be spliced into DDL (which takes no bind parameters). */
const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Thrown when the reader's secret holds a name or password this code will not splice into SQL. */
export class ReaderCredentialsError extends Error {
  override readonly name = 'ReaderCredentialsError';
}

/** A string literal, quotes doubled (standard_conforming_strings, on since PostgreSQL 9.1: backslashes are plain). */
const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * Creates the role if it is missing, sets its password, makes its sessions read-only, and grants it SELECT on what
 * the schema holds now and on what the migrations' role makes later (default privileges). Idempotent.
 */
export async function grantReader(sql: Sql, reader: ReaderCredentials): Promise<void> {
  if (!ROLE_NAME.test(reader.username))
    throw new ReaderCredentialsError(
      `the reader's username "${reader.username}" must be lower-case letters, digits, _`,
    );
  if (reader.password.length < 8 || reader.password.includes('\u0000'))
    throw new ReaderCredentialsError("the reader's password must be at least 8 characters, with no NUL");
  const role = reader.username;
  // CONNECT is PUBLIC's by default; USAGE on the schema is not
  const { rows } = await sql.query<{ schema: string }>('SELECT current_schema() AS schema');
  const schema = `"${rows[0].schema.replace(/"/g, '""')}"`;
  const exists = await sql.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
  if (exists.rows.length === 0) await sql.query(`CREATE ROLE ${role} LOGIN`);
  await sql.query(`ALTER ROLE ${role} WITH LOGIN PASSWORD ${literal(reader.password)}`);
  // a first line before the grants (a role may change its own session defaults, so the grants are the lock): a write
  // fails as read-only (25006) before it reaches a grant check
  await sql.query(`ALTER ROLE ${role} SET default_transaction_read_only = on`);
  await sql.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
  await sql.query(`REVOKE CREATE ON SCHEMA ${schema} FROM ${role}`);
  await sql.query(`GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${role}`);
  await sql.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${schema} GRANT SELECT ON TABLES TO ${role}`);
}
