// A local server speaking enough of the S3 REST protocol for PutObject
// (path-style PUT /bucket/key, SigV4 required), keeping what was put; other
// requests get S3's XML error. Buckets must be created first (NoSuchBucket).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import type { AwsCall, RequestAuthorizer, RequestScope } from '../rehearsal/authorizer.ts';

/** Object operations are authorized on the object ARN, arn:aws:s3:::bucket/key (resource type "object"). */
function objectCalls(method: string, bucket: string, key: string, s: RequestScope): AwsCall[] {
  const action = method === 'PUT' ? 's3:PutObject' : method === 'GET' ? 's3:GetObject' : undefined;
  return action && bucket && key ? [{ action, resource: `arn:${s.partition}:s3:::${bucket}/${key}` }] : [];
}

export class S3Sim {
  readonly buckets = new Set<string>();
  /** "bucket/key" -> the object's bytes as text and content type. */
  readonly objects = new Map<string, { body: string; contentType?: string }>();
  readonly requests: Array<{ method: string; path: string }> = [];
  private server: Server | null = null;

  /** `authorizer`: the rehearsal's IAM check of each signed request (none: every signed request is allowed). */
  constructor(private readonly opts: { authorizer?: RequestAuthorizer } = {}) {}

  async listen(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = decodeURIComponent(new URL(req.url ?? '/', 'http://sim').pathname);
        this.requests.push({ method: req.method ?? '', path });
        const error = (status: number, code: string, message: string) => {
          res.writeHead(status, { 'content-type': 'application/xml' });
          res.end(
            `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
          );
        };
        const answer = (bucket: string | undefined, key: string[]) => {
          if (req.method !== 'PUT' || !bucket || key.length === 0)
            return error(501, 'NotImplemented', 'PutObject only');
          if (!this.buckets.has(bucket)) return error(404, 'NoSuchBucket', 'The specified bucket does not exist');
          const body = Buffer.concat(chunks);
          this.objects.set(`${bucket}/${key.join('/')}`, {
            body: body.toString('utf8'),
            contentType: req.headers['content-type'],
          });
          res.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"` });
          res.end();
        };
        if (!req.headers.authorization?.startsWith('AWS4-HMAC-SHA256'))
          return error(403, 'AccessDenied', 'Access Denied');
        const [, bucket, ...key] = path.split('/');
        const authorizer = this.opts.authorizer;
        if (!authorizer) return answer(bucket, key);
        authorizer
          .check(req.headers, 'rest-xml', (s) => objectCalls(req.method ?? '', bucket, key.join('/'), s))
          .then((result) => {
            if (result.ok) return answer(bucket, key);
            res.writeHead(result.reply.status, result.reply.headers);
            res.end(result.reply.body);
          })
          .catch((err: unknown) => error(500, 'InternalError', String(err)));
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
