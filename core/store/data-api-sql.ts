// The SQL port (sql.ts) over the RDS Data API: each statement is one HTTPS call, so a Lambda needs no VPC
// connection and no pool. What differs from pg is made to look the same here: named parameters, typed result
// fields decoded by their column type, and the Data API's own failures (a paused Aurora resuming, the service
// unavailable) retried inside a time budget before they surface as DatabaseUnavailableError.
import type {
  ArrayValue,
  BeginTransactionCommandOutput,
  ColumnMetadata,
  ExecuteStatementCommand,
  ExecuteStatementCommandOutput,
  Field,
  RDSDataClient,
  SqlParameter,
} from '@aws-sdk/client-rds-data';
import {
  DatabaseUnavailableError,
  isTransientSqlState,
  ResultTooLargeError,
  type Sql,
  type SqlDatabase,
  type SqlResult,
  type SqlValue,
} from './sql.ts';
import { toNamedParameters } from './sql-text.ts';
import { arrayElementType, decodeArray, decodesText, decodeText, typeName } from './column-values.ts';
import { parseDatabaseErrorMessage, type SqlStateSource } from './sql-state.ts';
import { DATABASE_RETRY_BUDGET_MS } from '../config/budgets.ts';
import { DATA_API_UNAVAILABLE_NAMES } from './errors.ts';

/** A statement Postgres refused, as pg reports one: the Postgres message, and its SQLState as `code`. */
export class SqlError extends Error {
  override readonly name = 'SqlError';
  /** `code` was parsed from the Data API's message: it has no SQLState field (sql-state.ts). */
  readonly codeFrom: SqlStateSource = 'message';
  constructor(
    message: string,
    readonly code: string,
    /** 1-based character offset into the statement, when Postgres gave one. */
    readonly position: number | undefined,
    cause?: unknown,
  ) {
    super(message, { cause });
  }
}

/** A transaction the Data API no longer knows: idle for three minutes, older than 24 hours, or already ended. */
export class TransactionNotFoundError extends Error {
  override readonly name = 'TransactionNotFoundError';
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
  }
}

export interface DataApiOptions {
  resourceArn: string;
  secretArn: string;
  database: string;
  /** A client of the caller's; it is not destroyed by close(), and its own retries are the caller's choice. */
  client?: RDSDataClient;
  /** How long transient failures are retried before DatabaseUnavailableError (a cold resume takes ~15 s). */
  retryBudgetMs?: number;
  /** The wait between attempts (tests pass one that does not wait). */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Every statement with continueAfterTimeout: one past the Data API's 45 s runs on instead of being cancelled (the
   * caller still gets StatementTimeoutException). "For DDL statements, we recommend continuing to run the statement
   * after the call times out" (RDS Data API reference, ExecuteStatement): the migrations set it.
   */
  continueAfterTimeout?: boolean;
  /**
   * Read a SELECT seen before with formatRecordsAs JSON (default true; false: always `records`, as the test that
   * compares the two does). See execute() for why and how its values stay those of `records`.
   */
  jsonRecords?: boolean;
}

// the service's own conditions that pass (errors.ts), and the client's own request timeout
const TRANSIENT_NAMES = new Set([...DATA_API_UNAVAILABLE_NAMES, 'TimeoutError']);
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

const BASE_DELAY_MS = 200;
const MAX_DELAY_MS = 5_000;

interface ErrorLike {
  name?: string;
  message?: string;
  code?: string;
  $retryable?: unknown;
}

function isTransient(err: unknown): boolean {
  const e = err as ErrorLike | null;
  if (!e || typeof e !== 'object') return false;
  if (err instanceof SqlError) return isTransientSqlState(err.code);
  if (e.name && TRANSIENT_NAMES.has(e.name)) return true;
  if (e.code && NETWORK_CODES.has(e.code)) return true;
  // The SDK marks throttling and transient HTTP failures (a 5xx without a modelled name, a socket error) so.
  return Boolean(e.$retryable);
}

/**
 * An SDK failure as the port's errors: a Postgres error as SqlError (its SQLState read from the
 * DatabaseErrorException's message, the only place the Data API gives it: sql-state.ts), an oversized result as
 * ResultTooLargeError, an expired transaction as TransactionNotFoundError; anything else unchanged.
 */
function translateError(err: unknown): unknown {
  const e = err as ErrorLike | null;
  if (!e || typeof e !== 'object' || typeof e.message !== 'string') return err;
  if (e.name === 'DatabaseErrorException') {
    const parsed = parseDatabaseErrorMessage(e.message);
    return parsed ? new SqlError(parsed.message, parsed.code, parsed.position, err) : err;
  }
  // "Database returned more than the allowed response size limit" (1 MiB), and a row over 64 KB; the latter's
  // wording is not documented (the sim's says "exceeded size limit ... over 64 KB").
  const tooLarge = /response size limit|exceeded size limit|64 ?KB/i.test(e.message);
  if (tooLarge && (e.name === 'BadRequestException' || e.name === 'UnsupportedResultException'))
    return new ResultTooLargeError(
      `the result is over the Data API's limits (1 MiB a response, 64 KB a row): ${e.message}; ` +
        'read it in pages or select fewer columns',
      err,
    );
  if (e.name === 'TransactionNotFoundException')
    return new TransactionNotFoundError(
      `the Data API no longer knows the transaction (TransactionNotFoundException): it was idle for over three ` +
        `minutes, ran over 24 hours or had already ended, and its changes were rolled back: ${e.message}`,
      err,
    );
  return err;
}

function describe(err: unknown): string {
  const e = err as ErrorLike | null;
  const name = e?.name ?? 'Error';
  const code = err instanceof SqlError ? ` (SQLState ${err.code})` : e?.code ? ` (${e.code})` : '';
  return `${name}${code}: ${e?.message ?? String(err)}`;
}

/** A Postgres array literal of strings, every element quoted so that commas, braces and NULL stay text. */
function arrayLiteral(items: readonly string[]): string {
  return `{${items.map((s) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}

/** A Date as the Data API's TIMESTAMP hint wants it: "YYYY-MM-DD HH:MM:SS.FFF", in UTC. */
function timestampText(d: Date): string {
  if (Number.isNaN(d.getTime())) throw new TypeError('an Invalid Date cannot be sent as a timestamp parameter');
  return d.toISOString().replace('T', ' ').replace('Z', '');
}

function parameter(value: SqlValue | undefined, index: number): SqlParameter {
  const name = `p${index + 1}`;
  if (value === null || value === undefined) return { name, value: { isNull: true } };
  if (typeof value === 'boolean') return { name, value: { booleanValue: value } };
  if (typeof value === 'string') return { name, value: { stringValue: value } };
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`parameter $${index + 1} is ${value}, which JSON cannot carry`);
    // An integer beyond 2^53 is not exact in JS anyway; it goes as a double rather than a wrong long.
    return { name, value: Number.isSafeInteger(value) ? { longValue: value } : { doubleValue: value } };
  }
  if (value instanceof Date) return { name, value: { stringValue: timestampText(value) }, typeHint: 'TIMESTAMP' };
  // Array parameters are not supported by the Data API: send the array's text and let the SQL cast it.
  return { name, value: { stringValue: arrayLiteral(value) } };
}

function arrayItems(value: ArrayValue): unknown[] {
  if (value.arrayValues) return value.arrayValues.map((v) => (v === null ? null : arrayItems(v)));
  return value.longValues ?? value.doubleValues ?? value.booleanValues ?? value.stringValues ?? [];
}

/**
 * A field as the value pg gives for the same column (column-values.ts): typed fields (longValue, doubleValue,
 * booleanValue, blobValue, arrayValue's typed lists) are taken as they come; a stringValue, and each string of an
 * arrayValue, is Postgres's text for the column's type and decoded as pg's text is.
 */
function decode(field: Field, column: ColumnMetadata | undefined): unknown {
  if (field.isNull) return null;
  if (field.blobValue !== undefined) return Buffer.from(field.blobValue);
  const type = typeName(column?.typeName ?? '');
  if (field.arrayValue !== undefined) return decodeArray(arrayElementType(type) ?? '', arrayItems(field.arrayValue));
  if (typeof field.stringValue === 'string') return decodeText(type, field.stringValue);
  return field.longValue ?? field.doubleValue ?? field.booleanValue ?? null;
}

const columnName = (c: ColumnMetadata | undefined, i: number) => c?.label ?? c?.name ?? `?column${i}?`;

/**
 * A value of formattedRecords as the value `decode` gives for the same column: AWS maps each column to JSON as it
 * does to a Field ("The column values are quoted strings, numeric values, or special values representing true,
 * false, or null", aws-facts: data-api.json-records-format), so a string is the text a stringValue holds, except
 * bytea's, which is base64 as a blobValue is; an array is an arrayValue's list.
 */
function jsonDecoder(type: string): ((value: unknown) => unknown) | null {
  if (type === 'bytea') return (v) => (typeof v === 'string' ? Buffer.from(v, 'base64') : v);
  if (!decodesText(type)) return null; // text, varchar, uuid...: the JSON string is the value
  const element = arrayElementType(type);
  return (v) => (typeof v === 'string' ? decodeText(type, v) : Array.isArray(v) ? decodeArray(element ?? '', v) : v);
}

/** What the JSON form leaves out (its columnMetadata "is blank"): a SELECT's columns, learnt from `records`. */
interface ResultShape {
  columns: string[];
  /**
   * Each distinct name once, its last column's decoder (a row object keeps the last of a repeated name); null for
   * a column whose JSON value is already the port's.
   */
  decoders: Map<string, ((value: unknown) => unknown) | null>;
}

// Shapes kept per transport, by statement and parameter kinds; a process with endless distinct texts starts over.
const MAX_SHAPES = 512;
// Only a SELECT reads as JSON: a shape that no longer fits reruns the statement as `records` (see execute).
const SELECT = /^\s*select\b/i;

/** A parameter's kind as the Data API types it: `SELECT $1` is a bigint for a long and text for a string. */
const parameterKind = (p: SqlParameter) =>
  p.typeHint ?? Object.entries(p.value ?? {}).find(([, v]) => v !== undefined)?.[0];

/**
 * formattedRecords as the port's rows, decoded in place by the shape's column types; undefined when the rows'
 * keys are not the shape's columns (checked on the first row: every row of one result has the same keys).
 */
function fromJson<R>(formatted: string | undefined, shape: ResultShape): R[] | undefined {
  const rows = JSON.parse(formatted ?? '[]') as Array<Record<string, unknown>>;
  if (!Array.isArray(rows)) return undefined;
  const first = rows[0];
  if (
    first &&
    (Object.keys(first).length !== shape.decoders.size || Object.keys(first).some((k) => !shape.decoders.has(k)))
  )
    return undefined;
  const decoding = [...shape.decoders].filter((d): d is [string, (value: unknown) => unknown] => d[1] !== null);
  const names = decoding.map(([name]) => name);
  const decoders = decoding.map(([, decoder]) => decoder);
  for (const row of rows)
    for (let k = 0; k < names.length; k++) {
      const v = row[names[k]];
      if (v !== null) row[names[k]] = decoders[k](v);
    }
  return rows as R[];
}

/**
 * The SDK, loaded with the first statement (the CLI's commands import this and most of them never reach AWS), once:
 * every statement after it awaits the same settled promise.
 */
let rdsDataModule: Promise<typeof import('@aws-sdk/client-rds-data')> | undefined;
const rdsData = () => (rdsDataModule ??= import('@aws-sdk/client-rds-data'));

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class DataApiDatabase implements SqlDatabase {
  readonly transport = 'data-api' as const;
  private readonly client: Promise<RDSDataClient>;
  private readonly ownClient: boolean;
  private readonly budgetMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly continueAfterTimeout: boolean;
  private readonly target: { resourceArn: string; secretArn: string; database: string };
  private readonly jsonRecords: boolean;
  private readonly shapes = new Map<string, ResultShape>();

  constructor(opts: DataApiOptions) {
    this.target = { resourceArn: opts.resourceArn, secretArn: opts.secretArn, database: opts.database };
    this.ownClient = !opts.client;
    // maxAttempts 1: the SDK's standard retries (3 attempts, its own backoff) would retry 5xx and throttling
    // underneath ours, tripling calls and spending time our budget cannot see; here one call is one attempt.
    // The region is the cluster's, read from its ARN (arn:aws:rds:<region>:<account>:cluster:<name>).
    const region = opts.resourceArn.split(':')[3];
    this.client = opts.client
      ? Promise.resolve(opts.client)
      : rdsData().then((sdk) => new sdk.RDSDataClient({ region, maxAttempts: 1 }));
    this.budgetMs = opts.retryBudgetMs ?? DATABASE_RETRY_BUDGET_MS; // every database Lambda's timeout covers it
    this.sleep = opts.sleep ?? defaultSleep;
    this.continueAfterTimeout = opts.continueAfterTimeout ?? false;
    this.jsonRecords = opts.jsonRecords ?? true;
  }

  // The port's default row type, `any` there so callers read columns untyped as with pg (see sql.ts).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async query<R extends object = Record<string, any>>(
    text: string,
    values: readonly SqlValue[] = [],
  ): Promise<SqlResult<R>> {
    return this.withRetries('the statement', () => this.execute<R>(text, values, undefined));
  }

  /**
   * A failed statement leaves a transaction unusable, so a transient failure inside one reruns the whole of it:
   * a new BeginTransaction and `fn` again, within the same budget. `fn` must therefore be safe to run twice
   * (it is: the store's writes are idempotent, see retry-query.ts), and it must not swallow tx.query errors.
   */
  async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    return this.withRetries('the transaction', async () => {
      const { BeginTransactionCommand, CommitTransactionCommand, RollbackTransactionCommand } = await rdsData();
      const begun = await this.send<BeginTransactionCommandOutput>(new BeginTransactionCommand(this.target));
      const transactionId = begun.transactionId;
      if (!transactionId) throw new Error('BeginTransaction answered no transactionId');
      const tx: Sql = { query: (text, values = []) => this.execute(text, values, transactionId) };
      try {
        const result = await fn(tx);
        await this.send(new CommitTransactionCommand({ ...this.target, transactionId }));
        return result;
      } catch (err) {
        // Best effort: after a lost connection or an expiry the Data API may not know the id any more.
        await this.send(new RollbackTransactionCommand({ ...this.target, transactionId })).catch(() => undefined);
        throw err;
      }
    });
  }

  async close(): Promise<void> {
    if (this.ownClient) (await this.client).destroy();
  }

  private async send<O>(command: { readonly input: object }): Promise<O> {
    try {
      // The client's send is overloaded per command; every command here is one of its own.
      return (await (await this.client).send(command as ExecuteStatementCommand)) as O;
    } catch (err) {
      throw translateError(err);
    }
  }

  /**
   * One statement. A large read is decoded faster from formatRecordsAs JSON than from `records`: measured on a
   * 1 MiB page of 2,300 action rows, the SDK takes ~77 ms to deserialize `records` (a union object per field;
   * decode() itself is ~2% of it) and ~6 ms for the JSON string and JSON.parse, so a faster decoder of `records`
   * could win little. But JSON comes without column types, which the port's values depend on (a timestamptz is a
   * Date, jsonb parsed, numeric a number, text left as is): a SELECT is therefore read as `records` with its
   * metadata the first time, its columns' types are kept, and the same statement with parameters of the same kinds
   * is read as JSON after that (an export's pages are one statement). A result whose columns are not the kept ones
   * (a migration changed a view meanwhile) is read again as `records`: a SELECT, so running it twice is harmless.
   */
  private async execute<R>(
    text: string,
    values: readonly SqlValue[],
    transactionId: string | undefined,
  ): Promise<SqlResult<R>> {
    const sql = toNamedParameters(text);
    const parameters = values.map(parameter);
    const request = {
      ...this.target,
      sql,
      parameters,
      ...(transactionId ? { transactionId } : {}),
      ...(this.continueAfterTimeout ? { continueAfterTimeout: true } : {}),
    };
    const { ExecuteStatementCommand } = await rdsData();
    const select = this.jsonRecords && SELECT.test(sql);
    const key = select ? `${parameters.map(parameterKind).join(',')}\n${sql}` : '';
    const shape = select ? this.shapes.get(key) : undefined;
    if (shape) {
      const out = await this.send<ExecuteStatementCommandOutput>(
        new ExecuteStatementCommand({ ...request, formatRecordsAs: 'JSON' }),
      );
      const rows = fromJson<R>(out.formattedRecords, shape);
      if (rows) return { rows, rowCount: rows.length, columns: shape.columns };
      this.shapes.delete(key);
    }
    const out = await this.send<ExecuteStatementCommandOutput>(
      new ExecuteStatementCommand({ ...request, includeResultMetadata: true }),
    );
    const columns = out.columnMetadata ?? [];
    if (!out.records && !columns.length) return { rows: [], rowCount: out.numberOfRecordsUpdated ?? 0 };
    const rows = (out.records ?? []).map((record) => {
      const row: Record<string, unknown> = {};
      record.forEach((f, i) => (row[columnName(columns[i], i)] = decode(f, columns[i])));
      return row as R;
    });
    const names = columns.map(columnName);
    if (select && columns.length) {
      if (this.shapes.size >= MAX_SHAPES) this.shapes.clear();
      const decoders = new Map(names.map((n, i) => [n, jsonDecoder(typeName(columns[i].typeName ?? ''))]));
      this.shapes.set(key, { columns: names, decoders });
    }
    return { rows, rowCount: rows.length, columns: names };
  }

  /** Runs `attempt` until it succeeds, fails for good, or transient failures have used the retry budget. */
  private async withRetries<T>(what: string, attempt: () => Promise<T>): Promise<T> {
    const started = Date.now();
    let waited = 0; // the sleeps asked for, so that a test's instant sleep still spends the budget
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (err) {
        if (!isTransient(err)) throw err;
        const spent = Math.max(Date.now() - started, waited);
        const left = this.budgetMs - spent;
        if (left <= 0) {
          const resuming = (err as ErrorLike).name === 'DatabaseResumingException';
          throw new DatabaseUnavailableError(
            `the database stayed unavailable for ${what}: ${n} attempts over ${spent} ms (retry budget ` +
              `${this.budgetMs} ms)${resuming ? ', Aurora Serverless was still resuming from auto-pause' : ''}; ` +
              `last error ${describe(err)}`,
            err,
          );
        }
        // Exponential backoff with equal jitter, capped, and never past the budget.
        const backoff = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (n - 1));
        const delay = Math.min(left, Math.round(backoff * (0.5 + Math.random() / 2)));
        waited += delay;
        await this.sleep(delay);
      }
    }
  }
}
