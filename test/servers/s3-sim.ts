// A local server speaking enough of the S3 REST protocol for PutObject
// (path-style PUT /bucket/key, SigV4 required), keeping what was put; other
// requests get S3's XML error. Buckets must be created first (NoSuchBucket).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';

export class S3Sim {
  readonly buckets = new Set<string>();
  /** "bucket/key" -> the object's bytes as text and content type. */
  readonly objects = new Map<string, { body: string; contentType?: string }>();
  readonly requests: Array<{ method: string; path: string }> = [];
  private server: Server | null = null;

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
        if (!req.headers.authorization?.startsWith('AWS4-HMAC-SHA256'))
          return error(403, 'AccessDenied', 'Access Denied');
        const [, bucket, ...key] = path.split('/');
        if (req.method !== 'PUT' || !bucket || key.length === 0) return error(501, 'NotImplemented', 'PutObject only');
        if (!this.buckets.has(bucket)) return error(404, 'NoSuchBucket', 'The specified bucket does not exist');
        const body = Buffer.concat(chunks);
        this.objects.set(`${bucket}/${key.join('/')}`, {
          body: body.toString('utf8'),
          contentType: req.headers['content-type'],
        });
        res.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"` });
        res.end();
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
