// A local server speaking the SSM JSON 1.1 protocol for GetParametersByPath:
// pages of at most MaxResults (10) with NextToken, SecureStrings returned as
// ciphertext unless WithDecryption is true.
import { AwsJsonServer, type AwsJsonReply } from './aws-json-server.ts';
import type { AwsCall, RequestAuthorizer, RequestScope } from '../rehearsal/authorizer.ts';

export interface SimParameter {
  name: string;
  value: string;
  type?: 'String' | 'StringList' | 'SecureString';
}

export class SsmSim extends AwsJsonServer {
  constructor(
    public parameters: SimParameter[] = [],
    opts: { authorizer?: RequestAuthorizer } = {},
  ) {
    super('1.1', '', opts.authorizer);
  }

  /**
   * GetParametersByPath is authorized on the parameter ARN of the path itself (resource type "parameter",
   * Service Authorization Reference for SSM): /ariadne/config -> arn:...:parameter/ariadne/config.
   */
  protected calls(target: string, body: any, s: RequestScope): AwsCall[] {
    if (target !== 'AmazonSSM.GetParametersByPath' || typeof body.Path !== 'string') return [];
    const name = body.Path.length > 1 ? body.Path.replace(/\/$/, '') : body.Path;
    return [
      {
        action: 'ssm:GetParametersByPath',
        resource: `arn:${s.partition}:ssm:${s.region}:${s.account}:parameter${name.startsWith('/') ? '' : '/'}${name}`,
      },
    ];
  }

  protected operation(target: string, body: any): AwsJsonReply {
    if (target !== 'AmazonSSM.GetParametersByPath')
      return this.error('UnknownOperationException', `unknown operation ${target}`);
    const path: string = body.Path;
    const max = Math.min(body.MaxResults ?? 10, 10);
    if (!path?.startsWith('/')) return this.error('ValidationException', 'Path must start with /');
    const base = path.endsWith('/') ? path : `${path}/`;
    const matching = this.parameters
      .filter((p) => p.name.startsWith(base) && (body.Recursive || !p.name.slice(base.length).includes('/')))
      .sort((a, b) => a.name.localeCompare(b.name));
    const start = body.NextToken ? Number(Buffer.from(body.NextToken, 'base64').toString()) : 0;
    const page = matching.slice(start, start + max);
    const next = start + max < matching.length ? Buffer.from(String(start + max)).toString('base64') : undefined;
    return {
      status: 200,
      payload: {
        Parameters: page.map((p) => ({
          Name: p.name,
          Type: p.type ?? 'String',
          Value:
            p.type === 'SecureString' && !body.WithDecryption
              ? `AQICAHh${Buffer.from(p.value)
                  .toString('base64')
                  .replace(/[A-Za-z]/g, 'x')}`
              : p.value,
          Version: 1,
          LastModifiedDate: 1_763_800_000.123,
          ARN: `arn:aws:ssm:us-east-1:123456789012:parameter${p.name}`,
          DataType: 'text',
        })),
        ...(next ? { NextToken: next } : {}),
      },
    };
  }
}
