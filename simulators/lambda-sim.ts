// A local server for the one Lambda control-plane call Ariadne makes: GetAccountSettings
// (REST-JSON, aws-facts: lambda.get-account-settings-request), answering AccountLimit and AccountUsage. Its account is
// settable, so the rehearsal can be a new account with little concurrency
// (aws-facts: lambda.default-concurrent-executions). SigV4 required; with an authorizer, each request is authorized as
// lambda:GetAccountSettings on "*" (no resource type).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestAuthorization } from './authorization.ts';
import { fact } from '../aws-facts/facts.ts';

export interface SimLambdaAccount {
  concurrentExecutions: number;
  /** ConcurrentExecutions less what functions reserve (PutFunctionConcurrency). */
  unreservedConcurrentExecutions: number;
}

/** Lambda's default quota of concurrent executions, none of it reserved. */
export const DEFAULT_LAMBDA_ACCOUNT: SimLambdaAccount = {
  concurrentExecutions: fact('lambda.default-concurrent-executions').value,
  unreservedConcurrentExecutions: fact('lambda.default-concurrent-executions').value,
};

const REQUEST = fact('lambda.get-account-settings-request').value;
/** The request's path; the SDK may leave its trailing slash off. */
const isRequestPath = (path: string) => path.replace(/\/?$/, '/') === REQUEST.path;

export class LambdaSim {
  readonly requests: Array<{ method: string; path: string; principal?: string }> = [];
  /** What GetAccountSettings answers: settable, a new account's or a grown one's. */
  account: SimLambdaAccount;
  private readonly authorizer?: RequestAuthorization;
  private server: Server | null = null;

  constructor(opts: { authorizer?: RequestAuthorization; account?: SimLambdaAccount } = {}) {
    this.authorizer = opts.authorizer;
    this.account = opts.account ?? { ...DEFAULT_LAMBDA_ACCOUNT };
  }

  async listen(): Promise<string> {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0];
        const entry: (typeof this.requests)[number] = { method: req.method ?? 'GET', path };
        this.requests.push(entry);
        const reply = (status: number, body: unknown, type?: string) => {
          res.writeHead(status, {
            'content-type': 'application/json',
            'x-amzn-requestid': `req-${this.requests.length}`,
            ...(type ? { 'x-amzn-errortype': type } : {}),
          });
          res.end(JSON.stringify(body));
        };
        if (req.method !== REQUEST.method || !isRequestPath(path))
          return reply(404, { message: `no route ${req.method} ${path}` }, 'UnknownOperationException');
        if (!req.headers.authorization?.startsWith('AWS4-HMAC-SHA256'))
          return reply(403, { message: 'Missing Authentication Token' }, 'MissingAuthenticationTokenException');
        const answer = () =>
          reply(200, {
            AccountLimit: {
              CodeSizeUnzipped: fact('lambda.max-unzipped-package-bytes').value,
              CodeSizeZipped: fact('lambda.max-zipped-package-bytes').value,
              ConcurrentExecutions: this.account.concurrentExecutions,
              TotalCodeSize: fact('lambda.code-storage-bytes').value,
              UnreservedConcurrentExecutions: this.account.unreservedConcurrentExecutions,
            },
            AccountUsage: { FunctionCount: 12, TotalCodeSize: 25_000_000 },
          });
        if (!this.authorizer) return answer();
        this.authorizer
          .check(req.headers, 'rest-json', () => [{ action: 'lambda:GetAccountSettings', resource: '*' }])
          .then((result) => {
            if (!result.ok) {
              res.writeHead(result.reply.status, result.reply.headers);
              return res.end(result.reply.body);
            }
            entry.principal = result.principal;
            answer();
          })
          .catch((err: unknown) => reply(500, { message: String(err) }, 'ServiceException'));
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
