// A local server speaking the CloudFormation query protocol for DescribeStacks, so `ariadne policy researcher` and
// resolveStack can be tested through the real @aws-sdk/client-cloudformation:
// - requests are POST / with a form-encoded body (Action=DescribeStacks&Version=2010-05-15&StackName=...), SigV4;
// - a reply is XML, DescribeStacksResponse/DescribeStacksResult/Stacks/member/... (API_DescribeStacks, CloudFormation
//   API Reference: StackName, StackId, CreationTime, StackStatus, Outputs/member/{OutputKey,OutputValue,Description});
// - an error is <ErrorResponse><Error><Type>Sender</Type><Code>..</Code><Message>..</Message></Error><RequestId>,
//   HTTP 400; a stack that does not exist is ValidationError "Stack with id NAME does not exist" (API_DescribeStacks:
//   "If the stack doesn't exist, a ValidationError is returned").
// Given a rehearsal authorizer, each signed request is authorized as cloudformation:DescribeStacks on the stack's
// ARN, resource type "stack" (arn:...:cloudformation:REGION:ACCOUNT:stack/NAME/ID, Service Authorization Reference).
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { queryErrorReply, type AwsCall, type RequestAuthorizer } from '../rehearsal/authorizer.ts';

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

export class CloudFormationSim {
  readonly requests: Array<{ params: Record<string, string>; headers: Record<string, unknown> }> = [];
  readonly stacks: Array<Required<SimStack>> = [];
  private server: Server | null = null;

  constructor(
    stacks: SimStack[] = [],
    private readonly opts: { authorizer?: RequestAuthorizer } = {},
  ) {
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
  private calls(params: Record<string, string>, region: string, account: string, partition: string): AwsCall[] {
    if (params.Action !== 'DescribeStacks') return [];
    const found = this.matching(params.StackName);
    const arns = found.length
      ? found.map((s) => s.id)
      : params.StackName
        ? [`arn:${partition}:cloudformation:${region}:${account}:stack/${params.StackName}/*`]
        : [];
    return arns.map((resource) => ({ action: 'cloudformation:DescribeStacks', resource }));
  }

  private answer(params: Record<string, string>): { status: number; body: string } {
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

  async listen(): Promise<string> {
    this.server = createServer((req, res) => {
      let text = '';
      req.on('data', (c) => {
        text += c;
      });
      req.on('end', () => {
        const params = Object.fromEntries(new URLSearchParams(text));
        this.requests.push({ params, headers: req.headers });
        const reply = (r: { status: number; body: string; headers?: Record<string, string> }) => {
          res.writeHead(r.status, r.headers ?? { 'content-type': 'text/xml' });
          res.end(r.body);
        };
        if (!req.headers.authorization?.startsWith('AWS4-HMAC-SHA256'))
          return reply(queryErrorReply(403, 'MissingAuthenticationToken', 'Request is missing Authentication Token'));
        const authorizer = this.opts.authorizer;
        if (!authorizer) return reply(this.answer(params));
        authorizer
          .check(req.headers, 'query', (s) => this.calls(params, s.region, s.account, s.partition))
          .then((result) => reply(result.ok ? this.answer(params) : result.reply))
          .catch((err: unknown) => reply(queryErrorReply(500, 'InternalFailure', String(err))));
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
