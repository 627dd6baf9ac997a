// A local server speaking the CloudFormation query protocol for DescribeStacks, so `ariadne policy researcher` and
// resolveStack are tested through the real @aws-sdk/client-cloudformation: form-encoded POSTs with SigV4, XML replies,
// and a missing stack as ValidationError "Stack with id NAME does not exist" (API_DescribeStacks). With an authorizer,
// each request is authorized as cloudformation:DescribeStacks on the stack's ARN (resource type "stack").
import { randomUUID } from 'node:crypto';
import { queryErrorReply, type AwsCall, type RequestAuthorization, type RequestScope } from './authorization.ts';
import { AwsQueryServer, type QueryReply } from './aws-query-server.ts';

export interface SimStack {
  name: string;
  status: string;
  /** OutputKey -> OutputValue. */
  outputs: Record<string, string>;
  region?: string;
  account?: string;
  /** The stack's ARN; default arn:aws:cloudformation:REGION:ACCOUNT:stack/NAME/<a UUID>. */
  id?: string;
  creationTime?: Date;
}

const NAMESPACE = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';

const xmlEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const element = (name: string, value: string) => `<${name}>${xmlEscape(value)}</${name}>`;

export class CloudFormationSim extends AwsQueryServer {
  readonly stacks: Array<Required<SimStack>> = [];

  constructor(stacks: SimStack[] = [], opts: { authorizer?: RequestAuthorization } = {}) {
    super(opts.authorizer);
    for (const s of stacks) this.addStack(s);
  }

  /** Adds (or replaces, by name) a stack; returns it with its id. */
  addStack(s: SimStack): Required<SimStack> {
    const region = s.region ?? 'eu-west-1';
    const account = s.account ?? '123456789012';
    const stack: Required<SimStack> = {
      ...s,
      region,
      account,
      id: s.id ?? `arn:aws:cloudformation:${region}:${account}:stack/${s.name}/${randomUUID()}`,
      creationTime: s.creationTime ?? new Date('2026-11-23T10:00:00.000Z'),
    };
    const i = this.stacks.findIndex((x) => x.name === s.name);
    if (i >= 0) this.stacks.splice(i, 1, stack);
    else this.stacks.push(stack);
    return stack;
  }

  /** The stacks a StackName names: by name or by id (API_DescribeStacks: "the name or the unique stack ID"). */
  private matching(stackName: string | undefined): Array<Required<SimStack>> {
    if (stackName === undefined) return this.stacks;
    return this.stacks.filter((s) => s.name === stackName || s.id === stackName);
  }

  /**
   * DescribeStacks is authorized on each stack it describes (AWS's denials name arn:...:stack/NAME/<its UUID>,
   * github.com/anomalyco/sst/issues/3006), a stack that does not exist on its name with any id
   * (arn:...:stack/NAME/*, as in github.com/aws-samples/aws-hpc-tutorials/issues/271).
   */
  protected calls(params: Record<string, string>, { region, account, partition }: RequestScope): AwsCall[] {
    if (params.Action !== 'DescribeStacks') return [];
    const found = this.matching(params.StackName);
    const arns = found.length
      ? found.map((s) => s.id)
      : params.StackName
        ? [`arn:${partition}:cloudformation:${region}:${account}:stack/${params.StackName}/*`]
        : [];
    return arns.map((resource) => ({ action: 'cloudformation:DescribeStacks', resource }));
  }

  protected answer(params: Record<string, string>): QueryReply {
    const error = (code: string, message: string) => {
      const r = queryErrorReply(400, code, message);
      return { status: r.status, body: r.body };
    };
    if (params.Action !== 'DescribeStacks') return error('InvalidAction', `Could not find operation ${params.Action}`);
    const found = this.matching(params.StackName);
    if (params.StackName !== undefined && !found.length)
      return error('ValidationError', `Stack with id ${params.StackName} does not exist`);
    const members = found.map(
      (s) =>
        '<member>' +
        element('StackName', s.name) +
        element('StackId', s.id) +
        element('CreationTime', s.creationTime.toISOString()) +
        element('StackStatus', s.status) +
        '<Outputs>' +
        Object.entries(s.outputs)
          .map(([k, v]) => `<member>${element('OutputKey', k)}${element('OutputValue', v)}</member>`)
          .join('') +
        '</Outputs></member>',
    );
    return {
      status: 200,
      body:
        `<DescribeStacksResponse xmlns="${NAMESPACE}"><DescribeStacksResult><Stacks>${members.join('')}</Stacks>` +
        `</DescribeStacksResult><ResponseMetadata>${element('RequestId', randomUUID())}</ResponseMetadata>` +
        '</DescribeStacksResponse>',
    };
  }
}
