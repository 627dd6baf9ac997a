// A local server speaking the SSM JSON 1.1 protocol for GetParametersByPath:
// pages of at most MaxResults (MAX_RESULTS) with NextToken, SecureStrings returned as
// ciphertext unless WithDecryption is true; GetParameter; PutParameter (what `ariadne secret set` sends).
// A path's reader reads every level below it, whatever the grants on those levels (PATH_READS_BELOW).
import { AwsJsonServer, type AwsJsonReply } from './aws-json-server.ts';
import type { AwsCall, RequestAuthorization, RequestScope } from './authorization.ts';
import { fact } from '../aws-facts/facts.ts';

const MAX_RESULTS = fact('ssm.get-parameters-by-path-max-results').value;
/** Authorized on the path alone: the parameters below are answered without a check of their own. */
const PATH_READS_BELOW = fact('ssm.path-read-covers-levels-below').value;

export interface SimParameter {
  name: string;
  value: string;
  type?: 'String' | 'StringList' | 'SecureString';
  version?: number;
}

export class SsmSim extends AwsJsonServer {
  constructor(
    public parameters: SimParameter[] = [],
    opts: { authorizer?: RequestAuthorization } = {},
  ) {
    super('1.1', '', opts.authorizer);
  }

  /**
   * GetParametersByPath is authorized on the parameter ARN of the path itself (resource type "parameter",
   * Service Authorization Reference for SSM): /ariadne/config -> arn:...:parameter/ariadne/config.
   */
  protected calls(target: string, body: any, s: RequestScope): AwsCall[] {
    // GetParameter, PutParameter: on the parameter's own ARN (a name without a leading slash gets one in its ARN)
    const own = { 'AmazonSSM.GetParameter': 'ssm:GetParameter', 'AmazonSSM.PutParameter': 'ssm:PutParameter' }[target];
    if (own && typeof body.Name === 'string') {
      const name = body.Name.startsWith('/') ? body.Name : `/${body.Name}`;
      return [{ action: own, resource: `arn:${s.partition}:ssm:${s.region}:${s.account}:parameter${name}` }];
    }
    if (target !== 'AmazonSSM.GetParametersByPath' || typeof body.Path !== 'string' || !PATH_READS_BELOW) return [];
    const name = body.Path.length > 1 ? body.Path.replace(/\/$/, '') : body.Path;
    return [
      {
        action: 'ssm:GetParametersByPath',
        resource: `arn:${s.partition}:ssm:${s.region}:${s.account}:parameter${name.startsWith('/') ? '' : '/'}${name}`,
      },
    ];
  }

  protected operation(target: string, body: any): AwsJsonReply {
    if (target === 'AmazonSSM.GetParameter') return this.getParameter(body);
    if (target === 'AmazonSSM.PutParameter') return this.putParameter(body);
    if (target !== 'AmazonSSM.GetParametersByPath')
      return this.error('UnknownOperationException', `unknown operation ${target}`);
    const path: string = body.Path;
    const max = Math.min(body.MaxResults ?? MAX_RESULTS, MAX_RESULTS);
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
        Parameters: page.map((p) => this.shape(p, body.WithDecryption === true)),
        ...(next ? { NextToken: next } : {}),
      },
    };
  }

  /** A parameter as GetParameter and GetParametersByPath return it (a SecureString encrypted unless decrypted). */
  private shape(p: SimParameter, decrypt: boolean) {
    return {
      Name: p.name,
      Type: p.type ?? 'String',
      Value:
        p.type === 'SecureString' && !decrypt
          ? `AQICAHh${Buffer.from(p.value)
              .toString('base64')
              .replace(/[A-Za-z]/g, 'x')}`
          : p.value,
      Version: p.version ?? 1,
      LastModifiedDate: 1_763_800_000.123,
      ARN: `arn:aws:ssm:us-east-1:123456789012:parameter${p.name}`,
      DataType: 'text',
    };
  }

  /**
   * PutParameter (API_PutParameter): a new parameter, or a new version of one with Overwrite; without it an existing
   * name is ParameterAlreadyExists. Answers the version and the tier.
   */
  private putParameter(body: any): AwsJsonReply {
    if (typeof body.Name !== 'string' || typeof body.Value !== 'string' || body.Value === '')
      return this.error('ValidationException', 'Name and a non-empty Value are required');
    const i = this.parameters.findIndex((p) => p.name === body.Name);
    if (i >= 0 && body.Overwrite !== true)
      return this.error(
        'ParameterAlreadyExists',
        'The parameter already exists. To overwrite this value, set the ' + 'overwrite option in the request to true.',
      );
    const version = (i >= 0 ? (this.parameters[i].version ?? 1) : 0) + 1;
    const parameter: SimParameter = { name: body.Name, value: body.Value, type: body.Type ?? 'String', version };
    if (i >= 0) this.parameters.splice(i, 1, parameter);
    else this.parameters.push(parameter);
    return { status: 200, payload: { Version: version, Tier: 'Standard' } };
  }

  /** GetParameter: the one parameter, or ParameterNotFound (API_GetParameter, "Errors"). */
  private getParameter(body: any): AwsJsonReply {
    const found = this.parameters.find((p) => p.name === body.Name);
    if (!found) return this.error('ParameterNotFound', '');
    return { status: 200, payload: { Parameter: this.shape(found, body.WithDecryption === true) } };
  }
}
