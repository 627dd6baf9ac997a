// A local server speaking the SSM JSON 1.1 protocol for GetParametersByPath:
// POST / with X-Amz-Target: AmazonSSM.GetParametersByPath, pages of at most
// MaxResults (10) with NextToken, SecureStrings returned as ciphertext unless
// WithDecryption is true. Errors are {"__type", "message"} with status 400.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SimParameter { name: string; value: string; type?: 'String' | 'StringList' | 'SecureString' }

export class SsmSim {
  readonly requests: Array<{ target: string; body: any; headers: Record<string, unknown> }> = [];
  private server: Server | null = null;
  constructor(public parameters: SimParameter[] = []) {}

  async listen(): Promise<string> {
    this.server = createServer((req, res) => {
      let text = '';
      req.on('data', (c) => { text += c; });
      req.on('end', () => {
        const target = String(req.headers['x-amz-target'] ?? '');
        const body = text ? JSON.parse(text) : {};
        this.requests.push({ target, body, headers: req.headers });
        const reply = (status: number, payload: unknown) => {
          res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': `req-${this.requests.length}` });
          res.end(JSON.stringify(payload));
        };
        if (!req.headers.authorization?.startsWith('AWS4-HMAC-SHA256')) return reply(400, { __type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' });
        if (target !== 'AmazonSSM.GetParametersByPath') return reply(400, { __type: 'UnknownOperationException', message: `unknown operation ${target}` });
        const path: string = body.Path;
        const max = Math.min(body.MaxResults ?? 10, 10);
        if (!path?.startsWith('/')) return reply(400, { __type: 'ValidationException', message: 'Path must start with /' });
        const base = path.endsWith('/') ? path : `${path}/`;
        const matching = this.parameters
          .filter((p) => p.name.startsWith(base) && (body.Recursive || !p.name.slice(base.length).includes('/')))
          .sort((a, b) => a.name.localeCompare(b.name));
        const start = body.NextToken ? Number(Buffer.from(body.NextToken, 'base64').toString()) : 0;
        const page = matching.slice(start, start + max);
        const next = start + max < matching.length ? Buffer.from(String(start + max)).toString('base64') : undefined;
        reply(200, {
          Parameters: page.map((p) => ({
            Name: p.name, Type: p.type ?? 'String',
            Value: p.type === 'SecureString' && !body.WithDecryption ? `AQICAHh${Buffer.from(p.value).toString('base64').replace(/[A-Za-z]/g, 'x')}` : p.value,
            Version: 1, LastModifiedDate: 1_763_800_000.123, ARN: `arn:aws:ssm:us-east-1:123456789012:parameter${p.name}`, DataType: 'text',
          })),
          ...(next ? { NextToken: next } : {}),
        });
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
