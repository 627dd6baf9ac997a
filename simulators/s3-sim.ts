// A local server speaking enough of the S3 REST protocol for PutObject and
// GetObject (path-style /bucket/key, SigV4 required), keeping what was put;
// other requests get S3's XML error. Buckets must be created first (NoSuchBucket).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import type { AwsCall, RequestAuthorization, RequestScope } from './authorization.ts';

/**
 * Object operations are authorized on the object ARN, arn:aws:s3:::bucket/key (resource type "object"), with
 * s3:ResourceAccount, the account that owns the bucket ("Amazon S3 condition key examples", S3 User Guide).
 */
function objectCalls(method: string, bucket: string, key: string, s: RequestScope, owner?: string): AwsCall[] {
  const action = method === 'PUT' ? 's3:PutObject' : method === 'GET' ? 's3:GetObject' : undefined;
  const resource = `arn:${s.partition}:s3:::${bucket}/${key}`;
  return action && bucket && key ? [{ action, resource, context: { 's3:ResourceAccount': owner ?? s.account } }] : [];
}

export interface S3Object {
  /** The bytes as UTF-8 text (what the rehearsal reads back), and the bytes themselves. */
  body: string;
  bytes: Buffer;
  contentType?: string;
  /** The MD5 of the bytes in quotes, as S3 gives it for a single-part upload (PutObject, "Response Elements"). */
  etag: string;
  lastModified: Date;
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export class S3Sim {
  readonly buckets = new Set<string>();
  /** A bucket's owner when it is not the stack's account (bucket names are global: another account's can be named). */
  readonly owners = new Map<string, string>();
  /** "bucket/key" -> the object. */
  readonly objects = new Map<string, S3Object>();
  readonly requests: Array<{ method: string; path: string }> = [];
  private server: Server | null = null;

  /** `authorizer`: the rehearsal's IAM check of each signed request (none: every signed request is allowed). */
  constructor(private readonly opts: { authorizer?: RequestAuthorization } = {}) {}

  /** Stores an object as PutObject does (also for callers that are no principal of the template). */
  put(bucket: string, key: string, bytes: Buffer, contentType?: string): S3Object {
    const object: S3Object = {
      body: bytes.toString('utf8'),
      bytes,
      contentType,
      etag: `"${createHash('md5').update(bytes).digest('hex')}"`,
      // S3 dates have second precision (Last-Modified is an HTTP date)
      lastModified: new Date(Math.floor(Date.now() / 1000) * 1000),
    };
    this.objects.set(`${bucket}/${key}`, object);
    return object;
  }

  async listen(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks)));
    });
    // a sweep's ItemReader and ResultWriter arrive alongside many other requests: keep connections alive
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private handle(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://sim').pathname);
    const method = req.method ?? '';
    this.requests.push({ method, path });
    const requestId = randomBytes(8).toString('hex').toUpperCase();
    // S3's error document (S3 API Reference, "Error responses"): Code, Message, the key or bucket, RequestId.
    const error = (status: number, code: string, message: string, extra = '') => {
      res.writeHead(status, { 'content-type': 'application/xml', 'x-amz-request-id': requestId });
      res.end(
        method === 'HEAD'
          ? undefined
          : `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code>` +
              `<Message>${xmlEscape(message)}</Message>${extra}<RequestId>${requestId}</RequestId></Error>`,
      );
    };
    const [, bucket, ...keyParts] = path.split('/');
    const key = keyParts.join('/');
    const answer = (principal: string | undefined): void => {
      if ((method !== 'PUT' && method !== 'GET') || !bucket || !key)
        return error(501, 'NotImplemented', 'PutObject and GetObject only');
      if (!this.buckets.has(bucket))
        return error(
          404,
          'NoSuchBucket',
          'The specified bucket does not exist',
          `<BucketName>${xmlEscape(bucket)}</BucketName>`,
        );
      if (method === 'PUT') {
        const object = this.put(bucket, key, body, req.headers['content-type']);
        res.writeHead(200, { etag: object.etag, 'x-amz-request-id': requestId }).end();
        return;
      }
      const object = this.objects.get(`${bucket}/${key}`);
      if (object) {
        res.writeHead(200, {
          'content-type': object.contentType ?? 'binary/octet-stream',
          'content-length': String(object.bytes.length),
          etag: object.etag,
          'last-modified': object.lastModified.toUTCString(),
          'accept-ranges': 'bytes',
          'x-amz-request-id': requestId,
        });
        res.end(object.bytes);
        return;
      }
      // GetObject, "Permissions": with s3:ListBucket a missing key is 404 NoSuchKey; without it, 403 AccessDenied
      // (S3 will not tell a caller who may not list the bucket whether a key exists).
      void this.mayList(principal, bucket).then((list) =>
        list
          ? error(404, 'NoSuchKey', 'The specified key does not exist.', `<Key>${xmlEscape(key)}</Key>`)
          : error(403, 'AccessDenied', 'Access Denied'),
      );
    };
    if (!req.headers.authorization?.startsWith('AWS4-HMAC-SHA256')) return error(403, 'AccessDenied', 'Access Denied');
    const authorizer = this.opts.authorizer;
    if (!authorizer) return answer(undefined);
    authorizer
      .check(req.headers, 'rest-xml', (s) => objectCalls(method, bucket, key, s, this.owners.get(bucket)))
      .then((result) => {
        if (result.ok) answer(result.principal);
        else res.writeHead(result.reply.status, result.reply.headers).end(result.reply.body);
      })
      .catch((err: unknown) => error(500, 'InternalError', String(err)));
  }

  /** Whether the caller may list the bucket (no authorizer: every caller may). */
  private async mayList(principal: string | undefined, bucket: string): Promise<boolean> {
    const authorizer = this.opts.authorizer;
    if (!authorizer || !principal) return true;
    const resource = `arn:${authorizer.partition}:s3:::${bucket}`;
    return authorizer.allows(principal, { action: 's3:ListBucket', resource });
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
