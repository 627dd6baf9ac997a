// A local server speaking the RDS Data API's REST-JSON protocol (/Execute, /BatchExecute, /BeginTransaction,
// /CommitTransaction, /RollbackTransaction; errors as x-amzn-ErrorType + {"message"}) in front of a real Postgres
// schema, enforcing the limits AWS documents (aws-facts: data-api.max-response-bytes, data-api.max-row-bytes,
// data-api.max-request-bytes, data-api.transaction-*, data-api.statement-timeout-ms), no array parameters, typeHints,
// and DatabaseResumingException while a paused Aurora resumes.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import type { Database } from '../core/store/database.ts';
import type { AwsCall, RequestAuthorization } from './authorization.ts';
import { DataApiDatabase } from '../core/store/data-api-sql.ts';
import { SESSION_SETTINGS } from '../core/store/column-values.ts';
import { fact } from '../aws-facts/facts.ts';

const RESPONSE_LIMIT = fact('data-api.max-response-bytes').value;
const ROW_LIMIT = fact('data-api.max-row-bytes').value;
const REQUEST_LIMIT = fact('data-api.max-request-bytes').value;
const JSON_RECORDS_LIMIT = fact('data-api.max-json-records-bytes').value;
// The JSON form's values: what each Field member becomes (see jsonValue).
const JSON_FORMAT = fact('data-api.json-records-format').value;
const TRANSACTION_IDLE_MS = fact('data-api.transaction-idle-timeout-ms').value;
const TRANSACTION_MAX_MS = fact('data-api.transaction-max-ms').value;
const STATEMENT_TIMEOUT_MS = fact('data-api.statement-timeout-ms').value;
const RESUME_MS = fact('aurora.resume-typical-ms').value;

class DataApiError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The members an error's body carries beside __type, where the API model lists them. */
const ERROR_MEMBERS: Record<string, readonly string[]> = {
  DatabaseErrorException: fact('data-api.database-error-members').value,
};

/** An error's JSON body: its type and message, and its other members unless its type has no others. */
function errorBody(err: DataApiError): Record<string, unknown> {
  const body: Record<string, unknown> = { message: err.message, ...err.extra };
  const members = ERROR_MEMBERS[err.type];
  const kept = members ? Object.entries(body).filter(([k]) => members.includes(k)) : Object.entries(body);
  return { __type: err.type, ...Object.fromEntries(kept) };
}

interface Transaction {
  client: pg.PoolClient;
  started: number;
  timer: NodeJS.Timeout;
}

/** A database secret's value: the JSON keys of the secret Aurora generates (username, password). */
export interface DatabaseSecret {
  username: string;
  password: string;
}

/** A rotation the sim cannot make: it has no secret of its own, or the database refused the new password. */
class SecretRotationError extends Error {
  override readonly name = 'SecretRotationError';
}

/** The url with the secret's username and password in place of its own. */
export function urlWithSecret(url: string, secret: DatabaseSecret): string {
  const u = new URL(url);
  u.username = encodeURIComponent(secret.username);
  u.password = encodeURIComponent(secret.password);
  return u.href;
}

interface Options {
  /** Where Postgres is; without `secret`, also who connects (its user and password). */
  url: string;
  schema: string;
  /**
   * The current value of the secret secretArn names: the Data API opens its connections as this user with this
   * password (pg's connectionString would override separate user/password fields, so they go into the url).
   * The url's own credentials are then the admin's, which rotateSecret uses.
   */
  secret?: DatabaseSecret;
  /**
   * Other secrets of the cluster's users (the researchers' read-only role's): the Data API connects as whoever the
   * secret a call names holds, read at each call as AWS reads Secrets Manager.
   */
  otherSecrets?: (arn: string) => DatabaseSecret | undefined;
  clusterArn?: string;
  secretArn?: string;
  database?: string;
  /** Idle time after which a transaction is rolled back (AWS: three minutes). */
  transactionIdleMs?: number;
  /** How long a paused cluster answers DatabaseResumingException after the first call wakes it. */
  resumeAfterMs?: number;
  /** A call running longer answers StatementTimeoutException (AWS: 45 s). */
  statementTimeoutMs?: number;
  /** The rehearsal's IAM check of each signed request (none: every signed request is authorized). */
  authorizer?: RequestAuthorization;
}

/** The IAM action of each Data API operation (Service Authorization Reference for rds-data: resource "cluster"). */
const DATA_API_ACTIONS: Record<string, string> = {
  '/Execute': 'rds-data:ExecuteStatement',
  '/BatchExecute': 'rds-data:BatchExecuteStatement',
  '/BeginTransaction': 'rds-data:BeginTransaction',
  '/CommitTransaction': 'rds-data:CommitTransaction',
  '/RollbackTransaction': 'rds-data:RollbackTransaction',
};

/**
 * What AWS authorizes for one Data API call: the action on the cluster ARN, and secretsmanager:GetSecretValue on
 * the secret ARN, because the Data API reads the secret with the caller's own credentials ("Authorizing access to
 * the Amazon RDS Data API", Aurora User Guide: the policy needs both). Malformed ARNs are left to the operation's
 * own validation (BadRequestException).
 */
function dataApiCalls(path: string, body: any): AwsCall[] {
  const action = DATA_API_ACTIONS[path];
  if (!action || typeof body?.resourceArn !== 'string' || !body.resourceArn.startsWith('arn:')) return [];
  const calls: AwsCall[] = [{ action, resource: body.resourceArn }];
  if (typeof body.secretArn === 'string' && body.secretArn.startsWith('arn:'))
    calls.push({ action: 'secretsmanager:GetSecretValue', resource: body.secretArn });
  return calls;
}

// Postgres type oids (pg_type.dat) the Data API answers in a typed field rather than a string.
const LONG = new Set([20, 21, 23, 26]);
const DOUBLE = new Set([700, 701]);
const BOOL = 16;
const BYTEA = 17;
const TIMESTAMPTZ = 1184;
const ARRAYS: Record<number, 'longValues' | 'doubleValues' | 'booleanValues' | 'stringValues'> = {
  1005: 'longValues', // _int2
  1007: 'longValues', // _int4
  1016: 'longValues', // _int8
  1021: 'doubleValues', // _float4
  1022: 'doubleValues', // _float8
  1000: 'booleanValues', // _bool
  1009: 'stringValues', // _text
  1015: 'stringValues', // _varchar
  1231: 'stringValues', // _numeric
};
// java.sql.Types, which columnMetadata.type carries.
const JDBC: Record<string, number> = {
  int2: 5,
  int4: 4,
  int8: -5,
  float4: 7,
  float8: 8,
  numeric: 2,
  bool: -7,
  text: 12,
  varchar: 12,
  bpchar: 1,
  bytea: -2,
  date: 91,
  time: 92,
  timestamp: 93,
  timestamptz: 93,
};
const HINT_CAST: Record<string, string> = {
  JSON: 'json',
  UUID: 'uuid',
  TIMESTAMP: 'timestamp',
  DATE: 'date',
  TIME: 'time',
  DECIMAL: 'numeric',
};

/** Named `:name` parameters to `$n`, skipping string literals, quoted identifiers, comments and `::` casts. */
function translate(sql: string, names: Map<string, string>): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const rest = sql.slice(i);
    const skip =
      c === "'"
        ? /^'(?:[^']|'')*'?/.exec(rest)
        : c === '"'
          ? /^"(?:[^"]|"")*"?/.exec(rest)
          : rest.startsWith('--')
            ? /^--[^\n]*/.exec(rest)
            : rest.startsWith('/*')
              ? /^\/\*[\s\S]*?(?:\*\/|$)/.exec(rest)
              : c === '$'
                ? /^(\$[A-Za-z_]*\$)[\s\S]*?(?:\1|$)/.exec(rest)
                : rest.startsWith('::')
                  ? /^::/.exec(rest)
                  : null;
    if (skip) {
      out += skip[0];
      i += skip[0].length;
      continue;
    }
    const named = c === ':' ? /^:([A-Za-z_][A-Za-z0-9_]*)/.exec(rest) : null;
    if (named) {
      const n = names.get(named[1]);
      if (n === undefined)
        throw new DataApiError('BadRequestException', `No value specified for parameter ${named[1]}`);
      out += n;
      i += named[0].length;
      continue;
    }
    out += c;
    i += 1;
  }
  return out;
}

const FIELD_MEMBERS: readonly string[] = fact('data-api.field-members').value;

/** One Data API Field as a Postgres parameter value and the cast that gives it the type the Data API sends. */
function parameter(p: any): { value: unknown; cast: string } {
  const v = p?.value ?? { isNull: true };
  const members = Object.keys(v);
  if (members.length !== 1 || !FIELD_MEMBERS.includes(members[0]))
    throw new DataApiError('BadRequestException', `A Field has exactly one member of ${FIELD_MEMBERS.join(', ')}`);
  const hint = p?.typeHint as string | undefined;
  if (hint !== undefined && !(hint in HINT_CAST))
    throw new DataApiError('BadRequestException', `Invalid type hint: ${hint}`);
  if ('isNull' in v) return { value: null, cast: hint ? `::${HINT_CAST[hint]}` : '' };
  if (hint !== undefined && typeof v.stringValue !== 'string')
    throw new DataApiError('BadRequestException', `Type hint ${hint} applies to a stringValue only`);
  if ('stringValue' in v) return { value: v.stringValue, cast: `::${hint ? HINT_CAST[hint] : 'text'}` };
  if ('longValue' in v) return { value: String(v.longValue), cast: '::int8' };
  if ('doubleValue' in v) return { value: String(v.doubleValue), cast: '::float8' };
  if ('booleanValue' in v) return { value: v.booleanValue, cast: '::bool' };
  if ('blobValue' in v) return { value: Buffer.from(v.blobValue, 'base64'), cast: '::bytea' };
  if ('arrayValue' in v) throw new DataApiError('BadRequestException', 'Array parameters are not supported');
  throw new DataApiError('BadRequestException', `Unsupported parameter value: ${JSON.stringify(v)}`);
}

function prepare(sql: string, params: any[]): { text: string; values: unknown[] } {
  const names = new Map<string, string>();
  const values: unknown[] = [];
  for (const p of params) {
    if (typeof p?.name !== 'string') throw new DataApiError('BadRequestException', 'Parameter name is missing');
    const { value, cast } = parameter(p);
    values.push(value);
    names.set(p.name, cast ? `($${values.length}${cast})` : `$${values.length}`);
  }
  return { text: translate(sql, names), values };
}

/** One-dimensional Postgres array text ({a,"b c",NULL}) to its elements, null for NULL. */
function arrayElements(text: string): Array<string | null> {
  const inner = text.slice(text.indexOf('{') + 1, -1);
  if (inner === '') return [];
  const out: Array<string | null> = [];
  const re = /"((?:[^"\\]|\\.)*)"|([^,]+)/g;
  for (const m of inner.matchAll(re)) {
    out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2] === 'NULL' ? null : m[2]);
  }
  return out;
}

function field(oid: number, raw: string | null): Record<string, unknown> {
  if (raw === null) return { isNull: true };
  if (LONG.has(oid)) return { longValue: Number(raw) };
  if (DOUBLE.has(oid)) return { doubleValue: Number(raw) };
  if (oid === BOOL) return { booleanValue: raw === 't' };
  if (oid === BYTEA) return { blobValue: Buffer.from(raw.slice(2), 'hex').toString('base64') };
  // The Data API gives timestamps as "YYYY-MM-DD HH:MM:SS[.FFFFFF]" without a zone; the session runs in UTC.
  if (oid === TIMESTAMPTZ) return { stringValue: raw.replace(/\+00$/, '') };
  const kind = ARRAYS[oid];
  if (kind) {
    const items = arrayElements(raw);
    if (kind === 'longValues' || kind === 'doubleValues') return { arrayValue: { [kind]: items.map(Number) } };
    if (kind === 'booleanValues') return { arrayValue: { booleanValues: items.map((x) => x === 't') } };
    return { arrayValue: { stringValues: items } };
  }
  // numeric, text, varchar, json/jsonb, uuid, date, time, timestamp: the Data API answers a stringValue.
  return { stringValue: raw };
}

/**
 * A Field as formattedRecords gives its value (JSON_FORMAT): null; a number for longValue and doubleValue; true or
 * false; a string for stringValue (numeric included: decimalReturnType STRING is the default); bytea base64, as
 * blobValue; an array's elements as a JSON array.
 */
function jsonValue(f: Record<string, unknown>): unknown {
  if ('isNull' in f) return null;
  if ('arrayValue' in f) return Object.values(f.arrayValue as object)[0];
  if ('blobValue' in f) return f.blobValue; // already base64 (JSON_FORMAT.binary)
  return Object.values(f)[0];
}

/**
 * The rows as formattedRecords' JSON text: keyed by column label, repeated in every row, each value as jsonValue
 * gives the column's Field. A repeated label keeps its last value and its first place (what JSON.stringify of the
 * rows as objects wrote). Written as text, a column's key once: a 1 MiB page's field objects cost more than the rows.
 */
function formattedRecords(rows: Array<Array<string | null>>, fields: readonly pg.FieldDef[]): string {
  const last = new Map<string, number>();
  fields.forEach((f, i) => last.set(f.name, i));
  const slots = [...last].map(([name, i], k) => {
    const oid = fields[i].dataTypeID;
    return { key: `${k === 0 ? '{' : ','}${JSON.stringify(name)}:`, i, oid, kind: jsonKind(oid) };
  });
  const out: string[] = [];
  for (const row of rows) {
    let text = '';
    for (const { key, i, oid, kind } of slots) {
      const raw = row[i];
      // an integer is a JSON number (data-api-json.html: BIGINT "Number by default"): Postgres's text of it already is
      // one, its digits as stored rather than rounded through a double; a boolean is t/f
      if (raw === null) text += `${key}null`;
      else if (kind === 'integer') text += key + raw;
      else if (kind === 'boolean') text += key + (raw === 't' ? 'true' : 'false');
      else if (kind === 'string') text += key + JSON.stringify(raw);
      else text += key + JSON.stringify(jsonValue(field(oid, raw)));
    }
    out.push(slots.length === 0 ? '{}' : text + '}');
  }
  return `[${out.join(',')}]`;
}

/** How formattedRecords writes a column's values: the common kinds directly, the rest as jsonValue of their Field. */
function jsonKind(oid: number): 'integer' | 'boolean' | 'string' | 'other' {
  if (LONG.has(oid)) return 'integer';
  if (oid === BOOL) return 'boolean';
  if (DOUBLE.has(oid) || oid === BYTEA || oid === TIMESTAMPTZ || ARRAYS[oid]) return 'other';
  return 'string';
}

/**
 * Ends a pool once the calls waiting for one of its connections have one (pg-pool's end() would leave them
 * waiting forever); connections in use close as they are released.
 */
async function retire(pool: pg.Pool): Promise<void> {
  // polled: a waiter may also leave with an error (a connection that failed), which no event of the pool tells
  while (pool.waitingCount > 0) await sleep(20);
  await pool.end();
}

export class RdsDataSim {
  /**
   * Requests refused for a Data API limit and transactions expired while idle: quota problems of the caller (a
   * result over 1 MiB is not among them: the store pages its reads and expects to meet that one).
   */
  readonly limitHits: Array<{ limit: string; measured: number; allowed: number; unit: string }> = [];
  /** The largest row and response served, in bytes as the limits count them: how close a run came to them. */
  readonly peaks = { rowBytes: 0, responseBytes: 0 };
  readonly requests: Array<{ path: string; body: any }> = [];
  readonly clusterArn: string;
  readonly secretArn: string;
  readonly database: string;
  private pool: pg.Pool;
  private secret: DatabaseSecret | null;
  /** Pools of the other secrets' users, by user and password. */
  private readonly otherPools = new Map<string, pg.Pool>();
  /** Pools opened with a secret's earlier value, closing once their in-flight work is done. */
  private readonly retired: Array<Promise<void>> = [];
  private readonly transactions = new Map<string, Transaction>();
  private readonly heard = new WeakSet<pg.PoolClient>();
  private readonly ended = new Map<string, string>();
  private typeNames = new Map<number, string>();
  private pausedUntil: number | null = null;
  private paused = false;
  /** This pause's resume time, when pause() was given one (else opts.resumeAfterMs). */
  private resumeMs: number | undefined;
  /** An error every call answers while it is set (refuse): a fault a scenario injects. */
  private refusal: { type: string; message: string } | null = null;
  private server: Server | null = null;

  constructor(private readonly opts: Options) {
    this.clusterArn = opts.clusterArn ?? 'arn:aws:rds:eu-west-1:123456789012:cluster:ariadne';
    this.secretArn = opts.secretArn ?? 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ariadne-db-AbCdEf';
    this.database = opts.database ?? new URL(opts.url).pathname.slice(1);
    this.secret = opts.secret ? { ...opts.secret } : null;
    this.pool = this.openPool();
  }

  /** The secret's current value (null: the url's own credentials connect). */
  get secretValue(): DatabaseSecret | null {
    return this.secret && { ...this.secret };
  }

  /** The pool that connects as the user of the secret a call names (checkTarget has checked it exists). */
  private poolFor(secretArn: unknown): pg.Pool {
    if (secretArn === this.secretArn || typeof secretArn !== 'string') return this.pool;
    const secret = this.opts.otherSecrets?.(secretArn);
    if (!secret) return this.pool;
    const key = `${secret.username}\u0000${secret.password}`;
    let pool = this.otherPools.get(key);
    if (!pool) this.otherPools.set(key, (pool = this.openPool(secret)));
    return pool;
  }

  private openPool(secret = this.secret): pg.Pool {
    const pool = new pg.Pool({
      connectionString: secret ? urlWithSecret(this.opts.url, secret) : this.opts.url,
      max: 10,
      // Every value as Postgres's text, converted to Data API fields by column type.
      types: { getTypeParser: () => (v: string) => v },
      // AWS documents no session settings of the Data API: UTC, as its zone-less timestamps are, and Postgres's
      // own defaults otherwise (IntervalStyle postgres, bytea_output hex): column-values.ts's SESSION_SETTINGS.
      options: [
        `-c search_path=${this.opts.schema}`,
        ...Object.entries(SESSION_SETTINGS).map(([name, value]) => `-c ${name}=${value}`),
      ].join(' '),
    });
    pool.on('error', () => undefined);
    return pool;
  }

  /**
   * Rotates the secret as Secrets Manager's single-user rotation does: a new random password set on the role in
   * Postgres (ALTER ROLE, through an admin connection: `adminUrl`, default the url given), then made the secret's
   * current value. The Data API reads the secret on every call, so every connection opened from now on uses the
   * new value: the pooled connections are dropped. In-flight work is let finish on the connection it holds (a
   * transaction is bound to its connection, and Postgres keeps a session alive after its password changes); the
   * old pool closes once its last connection is released. Returns the previous and the current value.
   */
  async rotateSecret(adminUrl = this.opts.url): Promise<{ previous: DatabaseSecret; current: DatabaseSecret }> {
    const previous = this.secret;
    if (!previous)
      throw new SecretRotationError(
        "this Data API server has no secret of its own (option secret): it connects with the url's credentials",
      );
    const current = { username: previous.username, password: randomBytes(24).toString('hex') };
    const admin = new pg.Client({ connectionString: adminUrl });
    admin.on('error', () => undefined); // its statements fail instead (see lent())
    try {
      await admin.connect();
      await admin.query(
        `ALTER ROLE ${pg.escapeIdentifier(current.username)} PASSWORD ${pg.escapeLiteral(current.password)}`,
      );
    } catch (err) {
      throw new SecretRotationError(`could not set the new password of ${current.username}: ${String(err)}`, {
        cause: err,
      });
    } finally {
      await admin.end().catch(() => undefined);
    }
    this.secret = current;
    const old = this.pool;
    this.pool = this.openPool();
    this.retired.push(retire(old));
    return { previous: { ...previous }, current: { ...current } };
  }

  /**
   * Aurora Serverless v2 at 0 ACU after its idle period: calls answer DatabaseResumingException until resumed,
   * `resumeAfterMs` (default the server's option) after the first call ("If the instance is paused for longer than 24
   * hours, the resume time might be longer", Aurora User Guide, aurora-serverless-v2-auto-pause.html).
   */
  async pause(resumeAfterMs?: number): Promise<void> {
    // An instance pauses only without connections, so no transaction survives it.
    for (const id of [...this.transactions.keys()]) await this.endTransaction(id, 'ROLLBACK', 'expired');
    this.paused = true;
    this.pausedUntil = null;
    this.resumeMs = resumeAfterMs;
  }

  /** Until called with null, every authorized call answers this error (HTTP 400) instead of running. */
  refuse(error: { type: string; message: string } | null): void {
    this.refusal = error;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  async listen(port = 0): Promise<string> {
    this.server = createServer((req, res) => {
      void this.handle(req).then(({ status, payload }) => {
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          'x-amzn-requestid': `req-${this.requests.length}`,
        };
        if (status >= 300) headers['x-amzn-errortype'] = (payload as { __type: string }).__type;
        res.writeHead(status, headers);
        res.end(JSON.stringify(payload));
      });
    });
    await new Promise<void>((r) => this.server!.listen(port, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const id of [...this.transactions.keys()]) await this.endTransaction(id, 'ROLLBACK', 'expired');
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
    await Promise.all([this.pool.end(), ...[...this.otherPools.values()].map((p) => p.end()), ...this.retired]);
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; payload: unknown }> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req as AsyncIterable<Buffer>) {
      size += c.length;
      if (size <= REQUEST_LIMIT) chunks.push(c);
    }
    const path = (req.url ?? '/').split('?')[0];
    let body: any = {};
    try {
      if (size > REQUEST_LIMIT) {
        this.limitHits.push({
          limit: 'Data API request (4 MiB)',
          measured: size,
          allowed: REQUEST_LIMIT,
          unit: 'bytes',
        });
        throw new DataApiError('BadRequestException', `Request size ${size} exceeds the limit of 4 MiB`);
      }
      if (!req.headers.authorization?.startsWith('AWS4-HMAC-SHA256'))
        throw new DataApiError('ForbiddenException', 'Missing Authentication Token', 403);
      body = size ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      if (this.opts.authorizer) {
        const result = await this.opts.authorizer.check(req.headers, 'rest-json', () => dataApiCalls(path, body));
        // The authorizer's REST-JSON reply (x-amzn-ErrorType, 403, {"message"}), through this server's error path.
        if (!result.ok)
          throw new DataApiError(
            result.reply.headers['x-amzn-errortype'],
            (JSON.parse(result.reply.body) as { message: string }).message,
            result.reply.status,
          );
      }
      if (this.refusal) throw new DataApiError(this.refusal.type, this.refusal.message);
      const payload = await this.operation(path, body);
      const text = JSON.stringify(payload);
      this.peaks.responseBytes = Math.max(this.peaks.responseBytes, Buffer.byteLength(text));
      if (Buffer.byteLength(text) > RESPONSE_LIMIT)
        throw new DataApiError('BadRequestException', 'Database returned more than the allowed response size limit');
      return { status: 200, payload };
    } catch (err) {
      if (err instanceof DataApiError) return { status: err.status, payload: errorBody(err) };
      if (err instanceof SyntaxError)
        return { status: 400, payload: { __type: 'BadRequestException', message: err.message } };
      return { status: 500, payload: { __type: 'InternalServerErrorException', message: String(err) } };
    } finally {
      this.requests.push({ path, body });
    }
  }

  private checkTarget(body: any, withDatabase: boolean): void {
    const arn = /^arn:aws[a-z-]*:rds:[a-z0-9-]+:\d{12}:cluster:[A-Za-z0-9-]+$/;
    if (typeof body.resourceArn !== 'string' || !arn.test(body.resourceArn))
      throw new DataApiError('BadRequestException', `Invalid resource ARN: ${body.resourceArn ?? '(none)'}`);
    if (body.resourceArn !== this.clusterArn)
      throw new DataApiError('BadRequestException', `HttpEndpoint is not enabled for resource ${body.resourceArn}`);
    if (typeof body.secretArn !== 'string' || !body.secretArn.startsWith('arn:'))
      throw new DataApiError('BadRequestException', `Invalid secret ARN: ${body.secretArn ?? '(none)'}`);
    if (body.secretArn !== this.secretArn && !this.opts.otherSecrets?.(body.secretArn))
      throw new DataApiError(
        'ForbiddenException',
        `Not authorized to get secret value for ${body.secretArn} or it does not exist`,
        403,
      );
    if (withDatabase && body.database !== undefined && body.database !== this.database)
      throw new DataApiError('DatabaseErrorException', `FATAL: database "${body.database}" does not exist`);
    if (this.paused) {
      // The first call starts the resume; calls fail until the instance is up.
      this.pausedUntil ??= Date.now() + (this.resumeMs ?? this.opts.resumeAfterMs ?? RESUME_MS);
      if (Date.now() < this.pausedUntil)
        throw new DataApiError(
          'DatabaseResumingException',
          `The Aurora DB instance ${this.clusterArn} is resuming after being auto-paused. ` +
            'Please wait a few seconds and try again.',
        );
      this.paused = false;
      this.pausedUntil = null;
    }
  }

  private async operation(path: string, body: any): Promise<unknown> {
    if (path === '/Execute') {
      this.checkTarget(body, true);
      if (typeof body.sql !== 'string' || !body.sql) throw new DataApiError('BadRequestException', 'SQL is required');
      if (body.parameters !== undefined && !Array.isArray(body.parameters))
        throw new DataApiError('BadRequestException', 'parameters must be a list');
      // API_ExecuteStatement: formatRecordsAs "Valid Values: NONE | JSON"
      if (body.formatRecordsAs !== undefined && !['NONE', 'JSON'].includes(body.formatRecordsAs))
        throw new DataApiError('BadRequestException', `Invalid formatRecordsAs: ${String(body.formatRecordsAs)}`);
      const { text, values } = prepare(body.sql, body.parameters ?? []);
      const result = await this.run(
        body.transactionId,
        text,
        values,
        body.continueAfterTimeout === true,
        this.poolFor(body.secretArn),
      );
      return this.statementResponse(result, body);
    }
    if (path === '/BatchExecute') {
      this.checkTarget(body, true);
      if (typeof body.sql !== 'string' || !body.sql) throw new DataApiError('BadRequestException', 'SQL is required');
      const sets: any[][] = body.parameterSets ?? [];
      // Outside a transaction the batch runs in one of its own, so a failing parameter set leaves nothing behind
      // (an assumption: the API reference does not say whether a batch is atomic).
      const pool = this.poolFor(body.secretArn);
      const own = body.transactionId === undefined ? await this.begin(pool) : body.transactionId;
      try {
        const updateResults = [];
        for (const set of sets.length ? sets : [[]]) {
          const { text, values } = prepare(body.sql, set);
          await this.run(own, text, values, false, pool);
          if (sets.length) updateResults.push({ generatedFields: [] });
        }
        if (body.transactionId === undefined) await this.endTransaction(own, 'COMMIT', 'committed');
        return { updateResults };
      } catch (err) {
        if (body.transactionId === undefined && this.transactions.has(own))
          await this.endTransaction(own, 'ROLLBACK', 'rolled back');
        throw err;
      }
    }
    if (path === '/BeginTransaction') {
      this.checkTarget(body, true);
      return { transactionId: await this.begin(this.poolFor(body.secretArn)) };
    }
    if (path === '/CommitTransaction' || path === '/RollbackTransaction') {
      this.checkTarget(body, false);
      const commit = path === '/CommitTransaction';
      this.transaction(body.transactionId);
      await this.endTransaction(
        body.transactionId,
        commit ? 'COMMIT' : 'ROLLBACK',
        commit ? 'committed' : 'rolled back',
      );
      return { transactionStatus: commit ? 'Transaction Committed' : 'Rollback Complete' };
    }
    throw new DataApiError('UnknownOperationException', `No operation at ${path}`, 404);
  }

  /**
   * A client lent by the pool, heard when the server drops its connection: pg emits 'error' on it beside the failed
   * statement, and an unheard 'error' ends the process (the statement's rejection is what the caller gets).
   */
  private async lent(pool = this.pool): Promise<pg.PoolClient> {
    const client = await pool.connect();
    if (!this.heard.has(client)) {
      this.heard.add(client); // once per client: the pool lends the same ones again
      client.on('error', () => undefined);
    }
    return client;
  }

  private async begin(pool = this.pool): Promise<string> {
    const client = await this.lent(pool);
    await client.query('BEGIN');
    const id = randomBytes(48).toString('base64');
    this.transactions.set(id, { client, started: Date.now(), timer: this.expiry(id) });
    return id;
  }

  private expiry(id: string): NodeJS.Timeout {
    const idleMs = this.opts.transactionIdleMs ?? TRANSACTION_IDLE_MS;
    const t = setTimeout(() => {
      this.limitHits.push({ limit: 'Data API transaction idle expiry', measured: idleMs, allowed: idleMs, unit: 'ms' });
      void this.endTransaction(id, 'ROLLBACK', 'expired');
    }, idleMs);
    t.unref();
    return t;
  }

  /** The live transaction, its idle clock restarted; a finished, expired or unknown id fails as AWS does. */
  private transaction(id: unknown): Transaction {
    if (typeof id !== 'string' || !id) throw new DataApiError('BadRequestException', 'Transaction ID is required');
    const t = this.transactions.get(id);
    if (!t) {
      const how = this.ended.get(id);
      throw new DataApiError(
        'TransactionNotFoundException',
        how
          ? `Transaction ${id} has ${how === 'expired' ? 'timed out' : `been ${how}`}`
          : `Transaction ${id} is not found`,
        404,
      );
    }
    clearTimeout(t.timer);
    if (Date.now() - t.started > TRANSACTION_MAX_MS) {
      void this.endTransaction(id, 'ROLLBACK', 'expired');
      throw new DataApiError('TransactionNotFoundException', `Transaction ${id} has timed out`, 404);
    }
    t.timer = this.expiry(id);
    return t;
  }

  private async endTransaction(id: string, command: 'COMMIT' | 'ROLLBACK', how: string): Promise<void> {
    const t = this.transactions.get(id);
    if (!t) return;
    this.transactions.delete(id);
    this.ended.set(id, how);
    clearTimeout(t.timer);
    try {
      await t.client.query(command);
      t.client.release();
    } catch (err) {
      t.client.release(true);
      throw this.databaseError(err);
    }
  }

  private async run(transactionId: unknown, text: string, values: unknown[], keepRunning: boolean, pool = this.pool) {
    const client = transactionId === undefined ? await this.lent(pool) : this.transaction(transactionId).client;
    const limit = this.opts.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    // The extended protocol (parse/bind/execute), as a prepared statement on AWS: one statement per call, so
    // "SELECT 1; SELECT 2" is refused ("cannot insert multiple commands into a prepared statement", 42601), as
    // AWS recommends. pg uses the simple protocol for a call without values unless told otherwise.
    // (@types/pg does not declare queryMode, so the config is built apart from the call.)
    const config = { text, values, rowMode: 'array' as const, queryMode: 'extended' };
    const query = client.query<unknown[]>(config);
    try {
      return await Promise.race([
        query,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new DataApiError('StatementTimeoutException', 'Statement timeout')), limit);
        }),
      ]);
    } catch (err) {
      if (err instanceof DataApiError && err.type === 'StatementTimeoutException') {
        // AWS: without continueAfterTimeout the statement is cancelled; with it, it runs on after the error.
        const pid = (client as unknown as { processID: number }).processID;
        if (!keepRunning) await this.pool.query('SELECT pg_cancel_backend($1)', [pid]);
        query.catch(() => undefined);
        throw new DataApiError('StatementTimeoutException', err.message, 400, { dbConnectionId: pid });
      }
      throw this.databaseError(err);
    } finally {
      clearTimeout(timer);
      if (transactionId === undefined) void query.finally(() => client.release()).catch(() => undefined);
    }
  }

  /** A Postgres error as the Data API passes it on: its message and SQLState. */
  private databaseError(err: unknown): Error {
    if (err instanceof DataApiError) return err;
    const e = err as { message?: string; code?: string; position?: string };
    if (!e?.code) return err as Error;
    const position = e.position ? `\n  Position: ${e.position}` : '';
    return new DataApiError('DatabaseErrorException', `ERROR: ${e.message}${position}; SQLState: ${e.code}`);
  }

  private async typeName(oid: number): Promise<string> {
    if (!this.typeNames.has(oid)) {
      const { rows } = await this.pool.query<{ oid: string; typname: string }>('SELECT oid, typname FROM pg_type');
      this.typeNames = new Map(rows.map((r) => [Number(r.oid), r.typname]));
    }
    return this.typeNames.get(oid) ?? String(oid);
  }

  private async statementResponse(result: pg.QueryResult<unknown[]>, body: any): Promise<unknown> {
    const dml = ['INSERT', 'UPDATE', 'DELETE', 'MERGE'].includes(result.command);
    const response: Record<string, unknown> = {
      numberOfRecordsUpdated: dml ? (result.rowCount ?? 0) : 0,
      // Postgres gives no generated keys through the Data API (use RETURNING).
      generatedFields: [],
    };
    const fields = result.fields ?? [];
    if (!fields.length) return response;
    // The 64 KB rule is on "each row in the result set returned by the database": the row's values as Postgres
    // sends them, before the Data API wraps them in fields.
    for (const row of result.rows) {
      // UTF-8 takes at most 3 bytes a UTF-16 unit: a row whose length cannot pass the peak is not measured exactly
      const units = row.reduce<number>((n, raw) => n + (raw === null ? 0 : (raw as string).length), 0);
      if (units * 3 <= Math.min(this.peaks.rowBytes, ROW_LIMIT)) continue;
      const bytes = row.reduce<number>((n, raw) => n + (raw === null ? 0 : Buffer.byteLength(raw as string)), 0);
      this.peaks.rowBytes = Math.max(this.peaks.rowBytes, bytes);
      if (bytes > ROW_LIMIT)
        throw new DataApiError('BadRequestException', 'Database response exceeded size limit: a row is over 64 KB');
    }
    if (body.formatRecordsAs === 'JSON') {
      const formatted = formattedRecords(result.rows as Array<Array<string | null>>, fields);
      // formattedRecords' own limit (JSON_RECORDS_LIMIT); the limitations page's 1 MiB a response is checked on
      // the whole answer after this, for both forms: the stricter reading, so what passes here passes on AWS.
      if (Buffer.byteLength(formatted) > JSON_RECORDS_LIMIT)
        throw new DataApiError(
          'BadRequestException',
          'Database returned more than the allowed response size limit: the JSON-formatted result set is over 10 MB',
        );
      response.formattedRecords = formatted;
    } else
      response.records = result.rows.map((row) =>
        row.map((raw, i) => field(fields[i].dataTypeID, raw as string | null)),
      );
    // ExecuteStatementResponse: records and columnMetadata are "blank if the formatRecordsAs parameter is set to
    // JSON" (JSON_FORMAT), whatever includeResultMetadata says.
    const json = body.formatRecordsAs === 'JSON';
    if (body.includeResultMetadata && !(json && JSON_FORMAT.columnMetadata === 'absent')) {
      const meta = [];
      for (const f of fields) {
        const typeName = await this.typeName(f.dataTypeID);
        meta.push({
          name: f.name,
          label: f.name,
          typeName,
          type: typeName.startsWith('_') ? 2003 : (JDBC[typeName] ?? 1111),
          isSigned: LONG.has(f.dataTypeID) || DOUBLE.has(f.dataTypeID) || typeName === 'numeric',
          isCaseSensitive: ['text', 'varchar', 'bpchar'].includes(typeName),
          isCurrency: false,
          isAutoIncrement: false,
          nullable: 2, // columnNullableUnknown: a result column need not come from a table
          precision: f.dataTypeSize > 0 ? f.dataTypeSize : 0,
          scale: 0,
          schemaName: '',
          tableName: '',
          arrayBaseColumnType: 0,
        });
      }
      response.columnMetadata = meta;
    }
    return response;
  }
}

/**
 * A pg Database whose port (query, transaction) goes through the Data API instead: our DataApiDatabase and the
 * real SDK client, through a sim in front of the same schema. The pool stays, for looking at the rows directly.
 */
export async function overDataApi(
  db: Database & { url?: string },
  opts: { url: string; retryBudgetMs?: number } & Pick<Options, 'resumeAfterMs' | 'transactionIdleMs'>,
): Promise<Database & { sim: RdsDataSim }> {
  const sim = new RdsDataSim({ ...opts, schema: db.schema });
  const endpoint = await sim.listen();
  const port = new DataApiDatabase({
    resourceArn: sim.clusterArn,
    secretArn: sim.secretArn,
    database: sim.database,
    retryBudgetMs: opts.retryBudgetMs,
    client: new RDSDataClient({
      endpoint,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' },
    }),
  });
  return {
    ...db,
    query: port.query.bind(port),
    transaction: port.transaction.bind(port),
    transport: port.transport,
    sim,
    close: async () => {
      await sim.close();
      await db.close();
    },
  };
}
