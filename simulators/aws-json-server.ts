// What the SSM and Step Functions simulators share: the AWS JSON protocol
// (POST / with X-Amz-Target, application/x-amz-json-1.x bodies, SigV4 required,
// errors as {"__type", "message"}), a log of every request, listen and close, and, given a rehearsal
// authorizer, IAM authorization of each request against the signing function's role.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AwsCall, RequestAuthorization, RequestScope } from './authorization.ts';
import { onBody } from './aws-query-server.ts';

export interface AwsJsonReply {
  status: number;
  payload: unknown;
}

export abstract class AwsJsonServer {
  readonly requests: Array<{ target: string; body: any; headers: Record<string, unknown> }> = [];
  private server: Server | null = null;

  constructor(
    private readonly jsonVersion: '1.0' | '1.1',
    private readonly errorTypePrefix = '',
    /** When set, each signed request is authorized (calls()) before it is answered; a denial answers instead. */
    private readonly authorizer?: RequestAuthorization,
  ) {}

  /** Answers one operation (target without the service prefix is the caller's business); `principal`: who signed
   * it, when an authorizer knows. A promise: the reply waits (StartSyncExecution answers when its execution ends). */
  protected abstract operation(target: string, body: any, principal?: string): AwsJsonReply | Promise<AwsJsonReply>;

  /** The IAM authorizations AWS makes for one operation (none: not authorized here, e.g. an unknown one). */
  protected abstract calls(target: string, body: any, scope: RequestScope): AwsCall[];

  protected error(type: string, message: string, status = 400): AwsJsonReply {
    return { status, payload: { __type: `${this.errorTypePrefix}${type}`, message } };
  }

  async listen(): Promise<string> {
    this.server = createServer((req, res) => {
      onBody(req, (text) => {
        const target = String(req.headers['x-amz-target'] ?? '');
        const body = text ? JSON.parse(text) : {};
        this.requests.push({ target, body, headers: req.headers });
        const signed = req.headers.authorization?.startsWith('AWS4-HMAC-SHA256');
        const answer = async (principal?: string) => {
          const { status, payload } = signed
            ? await this.operation(target, body, principal)
            : this.error('MissingAuthenticationTokenException', 'Missing Authentication Token');
          res.writeHead(status, {
            'content-type': `application/x-amz-json-${this.jsonVersion}`,
            'x-amzn-requestid': `req-${this.requests.length}`,
          });
          res.end(JSON.stringify(payload));
        };
        const failed = (err: unknown) => {
          res.writeHead(500, { 'content-type': `application/x-amz-json-${this.jsonVersion}` });
          res.end(JSON.stringify({ __type: 'InternalFailure', message: String(err) }));
        };
        if (!signed || !this.authorizer) return void answer().catch(failed);
        this.authorizer
          .check(req.headers, `json-${this.jsonVersion}`, (scope) => this.calls(target, body, scope))
          .then((result) => {
            if (result.ok) return answer(result.principal);
            res.writeHead(result.reply.status, result.reply.headers);
            res.end(result.reply.body);
          })
          .catch(failed);
      });
    });
    // a sweep sends thousands of requests on a few connections: keep them alive between requests
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
