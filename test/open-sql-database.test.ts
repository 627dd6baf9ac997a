// The one database factory (core/store/open-sql-database.ts): which target the environment names, and the clear
// error, naming the variable and the fix, for a target that cannot be opened.
import { describe, expect, it } from 'vitest';
import {
  databaseTargetFromEnvironment,
  openSqlDatabase,
  pgTargetFromEnvironment,
} from '../core/store/open-sql-database.ts';

const CLUSTER = 'arn:aws:rds:eu-west-1:123456789012:cluster:ariadne';
const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ariadne-db-AbCdEf';

const configError = (field: string, message: RegExp) =>
  expect.objectContaining({ name: 'DatabaseConfigError', field, message: expect.stringMatching(message) as unknown });

describe('databaseTargetFromEnvironment', () => {
  it('takes DATABASE_URL (with DATABASE_SCHEMA) first, over the Data API variables', () => {
    const env = { DATABASE_URL: 'postgres://a:b@db:5432/x', DATABASE_SCHEMA: 's1', DATABASE_CLUSTER_ARN: CLUSTER };
    expect(databaseTargetFromEnvironment(env)).toEqual({
      url: 'postgres://a:b@db:5432/x',
      field: 'DATABASE_URL',
      schema: 's1',
    });
  });

  it('else the Data API to the cluster, database ariadne unless DATABASE_NAME says', () => {
    expect(databaseTargetFromEnvironment({ DATABASE_CLUSTER_ARN: CLUSTER, DATABASE_SECRET_ARN: SECRET })).toEqual({
      dataApi: { resourceArn: CLUSTER, secretArn: SECRET, database: 'ariadne' },
    });
    const named = { DATABASE_URL: '', DATABASE_CLUSTER_ARN: CLUSTER, DATABASE_SECRET_ARN: SECRET, DATABASE_NAME: 'r' };
    expect(databaseTargetFromEnvironment(named)).toEqual({
      dataApi: { resourceArn: CLUSTER, secretArn: SECRET, database: 'r' },
    });
  });

  it('refuses an environment that names no database, saying what to set', () => {
    expect(() => databaseTargetFromEnvironment({})).toThrow(
      configError('DATABASE_URL', /^set DATABASE_URL, or DATABASE_CLUSTER_ARN and DATABASE_SECRET_ARN/),
    );
  });

  it('names the missing half of the Data API pair', () => {
    expect(() => databaseTargetFromEnvironment({ DATABASE_CLUSTER_ARN: CLUSTER })).toThrow(
      configError('DATABASE_SECRET_ARN', /^DATABASE_SECRET_ARN is unset but DATABASE_CLUSTER_ARN is set: .*both/),
    );
    expect(() => databaseTargetFromEnvironment({ DATABASE_SECRET_ARN: SECRET })).toThrow(
      configError('DATABASE_CLUSTER_ARN', /^DATABASE_CLUSTER_ARN is unset but DATABASE_SECRET_ARN is set/),
    );
  });
});

describe('pgTargetFromEnvironment', () => {
  it('is undefined without DATABASE_URL (the CLI then starts the embedded server)', () => {
    expect(pgTargetFromEnvironment({ DATABASE_SCHEMA: 's', DATABASE_CLUSTER_ARN: CLUSTER })).toBeUndefined();
  });
});

describe('openSqlDatabase', () => {
  it('refuses a URL that is not one, naming where it came from and the form expected', async () => {
    await expect(openSqlDatabase({ url: 'localhost:5432/ariadne' })).rejects.toThrow(
      configError('DATABASE_URL', /^DATABASE_URL .* expected postgres:\/\/user:password@host:5432\/database$/),
    );
    await expect(openSqlDatabase({ url: 'mysql://h/db', field: 'BENCH_DATABASE_URL' })).rejects.toThrow(
      configError('BENCH_DATABASE_URL', /has scheme "mysql:"/),
    );
  });

  it('refuses a Data API target whose ARNs are not ARNs, naming the variable and the output to set', async () => {
    await expect(
      openSqlDatabase({ dataApi: { resourceArn: 'ariadne-db', secretArn: SECRET, database: 'ariadne' } }),
    ).rejects.toThrow(
      configError(
        'DATABASE_CLUSTER_ARN',
        /^DATABASE_CLUSTER_ARN is "ariadne-db"; it must be an ARN .*DatabaseClusterArn/,
      ),
    );
    await expect(
      openSqlDatabase({ dataApi: { resourceArn: CLUSTER, secretArn: '', database: 'ariadne' } }),
    ).rejects.toThrow(configError('DATABASE_SECRET_ARN', /^DATABASE_SECRET_ARN is empty; .*DatabaseSecretArn output/));
    await expect(
      openSqlDatabase({ dataApi: { resourceArn: CLUSTER, secretArn: SECRET, database: ' ' } }),
    ).rejects.toThrow(configError('DATABASE_NAME', /^DATABASE_NAME is empty; .*DatabaseName output/));
  });

  it("names a stack's output when the target came from one", async () => {
    const fields = { resourceArn: 'output A', secretArn: 'output B', database: 'output C' };
    await expect(
      openSqlDatabase({ dataApi: { resourceArn: CLUSTER, secretArn: 'nope', database: 'ariadne' }, fields }),
    ).rejects.toThrow(configError('output B', /^output B is "nope"/));
  });

  it('opens a Data API target without a connection (the Data API is called per statement)', async () => {
    const db = await openSqlDatabase({ dataApi: { resourceArn: CLUSTER, secretArn: SECRET, database: 'ariadne' } });
    expect(db.transport).toBe('data-api');
    await db.close();
  });
});
