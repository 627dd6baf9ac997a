// In AWS the database credentials live in Secrets Manager (the secret RDS
// writes: {username, password, port, dbname, ...}); the Lambdas reach the
// database through RDS Proxy with TLS required.
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DatabaseConfigError } from './errors.ts';

export async function databaseUrlFromSecret(
  opts: { secretArn: string; host: string; database: string },
  client = new SecretsManagerClient({}),
): Promise<string> {
  const res = await client.send(new GetSecretValueCommand({ SecretId: opts.secretArn }));
  // The fields are checked below; anything else in the secret is ignored.
  let secret: { username?: string; password?: string; port?: number };
  try {
    secret = JSON.parse(res.SecretString ?? '{}') as typeof secret;
  } catch {
    throw new DatabaseConfigError(
      'DATABASE_SECRET_ARN',
      `the secret ${opts.secretArn} is not JSON with username and password`,
    );
  }
  if (!secret.username || !secret.password)
    throw new DatabaseConfigError('DATABASE_SECRET_ARN', `the secret ${opts.secretArn} has no username or password`);
  const url = new URL(`postgres://${opts.host}:${secret.port ?? 5432}/${opts.database}`);
  url.username = secret.username;
  url.password = secret.password;
  url.searchParams.set('sslmode', 'verify-full'); // RDS Proxy requires TLS; its certificate is publicly trusted
  return url.toString();
}
