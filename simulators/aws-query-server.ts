// What the query-protocol simulators (CloudFormation, STS, IAM) share: POST / with a form-encoded body
// (Action=...&Version=...), SigV4 required (MissingAuthenticationToken without), XML replies, a log of every
// request, listen and close, and, given a rehearsal authorizer, IAM authorization of each request before it is
// answered (a denial answers instead).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { queryErrorReply, type AwsCall, type RequestAuthorization, type RequestScope } from './authorization.ts';

export interface QueryReply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** A request's whole body as text, then `done`. */
export function onBody(req: IncomingMessage, done: (text: string) => void): void {
  let text = '';
  req.on('data', (c) => {
    text += c;
  });
  req.on('end', () => done(text));
}

/** The service a SigV4 request was signed for: Credential=KEY/DATE/REGION/SERVICE/aws4_request. */
const signedService = (authorization: string | undefined) =>
  /Credential=[^/]+\/[^/]+\/[^/]+\/([^/]+)\//.exec(authorization ?? '')?.[1];

export abstract class AwsQueryServer {
  readonly requests: Array<{ params: Record<string, string>; headers: Record<string, unknown>; service?: string }> = [];
  private server: Server | null = null;

  constructor(protected readonly authorizer?: RequestAuthorization) {}

  /** The IAM authorizations AWS makes for the request (none: nothing to authorize). */
  protected abstract calls(params: Record<string, string>, scope: RequestScope): AwsCall[];

  /**
   * The reply to an authorized request. `principal`: who signed it, when an authorizer knows; `service`: the
   * service its signature names (one endpoint per service on AWS).
   */
  protected abstract answer(
    params: Record<string, string>,
    principal: string | undefined,
    service: string | undefined,
  ): QueryReply | Promise<QueryReply>;

  async listen(): Promise<string> {
    this.server = createServer((req, res) =>
      onBody(req, (text) => {
        const params = Object.fromEntries(new URLSearchParams(text));
        const service = signedService(req.headers.authorization);
        this.requests.push({ params, headers: req.headers, service });
        const reply = (r: QueryReply) => {
          res.writeHead(r.status, r.headers ?? { 'content-type': 'text/xml' });
          res.end(r.body);
        };
        if (!req.headers.authorization?.startsWith('AWS4-HMAC-SHA256'))
          return reply(queryErrorReply(403, 'MissingAuthenticationToken', 'Request is missing Authentication Token'));
        const authorized = this.authorizer
          ? this.authorizer.check(req.headers, 'query', (scope) => this.calls(params, scope))
          : Promise.resolve({ ok: true as const, principal: undefined });
        authorized
          .then(async (result) =>
            reply(result.ok ? await this.answer(params, result.principal, service) : result.reply),
          )
          .catch((err: unknown) => reply(queryErrorReply(500, 'InternalFailure', String(err))));
      }),
    );
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
