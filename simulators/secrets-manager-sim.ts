// A local server speaking Secrets Manager's JSON 1.1 protocol for GetSecretValue (by ARN or name; an unknown secret is
// ResourceNotFoundException). With an authorizer, each call is authorized as secretsmanager:GetSecretValue on the
// secret's ARN. The Data API simulator reads the same secrets (databaseSecret), as the Data API reads Secrets Manager
// on every call.
import { randomUUID } from 'node:crypto';
import { AwsJsonServer, type AwsJsonReply } from './aws-json-server.ts';
import type { AwsCall, RequestAuthorization, RequestScope } from './authorization.ts';
import type { DatabaseSecret } from './rds-data-sim.ts';

interface StoredSecret {
  arn: string;
  value: string;
  versionId: string;
}

export class SecretsManagerSim extends AwsJsonServer {
  private readonly secrets: StoredSecret[] = [];

  constructor(opts: { authorizer?: RequestAuthorization } = {}) {
    super('1.1', '', opts.authorizer);
  }

  /** Stores (or replaces) a secret's value: what CloudFormation's generated secret would hold. */
  put(arn: string, value: DatabaseSecret | string): void {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    const i = this.secrets.findIndex((s) => s.arn === arn);
    const stored = { arn, value: text, versionId: randomUUID() };
    if (i >= 0) this.secrets.splice(i, 1, stored);
    else this.secrets.push(stored);
  }

  /** A database secret's username and password, as the Data API reads them; undefined for an unknown ARN. */
  databaseSecret(arn: string): DatabaseSecret | undefined {
    const found = this.secrets.find((s) => s.arn === arn);
    if (!found) return undefined;
    const { username, password } = JSON.parse(found.value) as DatabaseSecret;
    return { username, password };
  }

  /** A secret by ARN or by name (the ARN's last part without its six-character suffix). */
  private find(id: unknown): StoredSecret | undefined {
    if (typeof id !== 'string') return undefined;
    return this.secrets.find((s) => s.arn === id || nameOf(s.arn) === id);
  }

  /** Authorized on the secret's ARN; one that does not exist, on the ARN its id would have (a denial hides it). */
  protected calls(target: string, body: any, s: RequestScope): AwsCall[] {
    if (target !== 'secretsmanager.GetSecretValue' || typeof body.SecretId !== 'string') return [];
    const id: string = body.SecretId;
    const resource =
      this.find(id)?.arn ??
      (id.startsWith('arn:') ? id : `arn:${s.partition}:secretsmanager:${s.region}:${s.account}:secret:${id}-*`);
    return [{ action: 'secretsmanager:GetSecretValue', resource }];
  }

  protected operation(target: string, body: any): AwsJsonReply {
    if (target !== 'secretsmanager.GetSecretValue')
      return this.error('UnknownOperationException', `unknown operation ${target}`);
    const found = this.find(body.SecretId);
    if (!found) return this.error('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return {
      status: 200,
      payload: {
        ARN: found.arn,
        Name: nameOf(found.arn),
        VersionId: found.versionId,
        SecretString: found.value,
        VersionStages: ['AWSCURRENT'],
        CreatedDate: 1_763_800_000.123,
      },
    };
  }
}

/** arn:...:secret:NAME-AbCdEf -> NAME (Secrets Manager appends six random characters to a secret's ARN). */
function nameOf(arn: string): string {
  return arn
    .split(':')
    .slice(6)
    .join(':')
    .replace(/-[A-Za-z0-9]{6}$/, '');
}
