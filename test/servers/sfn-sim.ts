// A local server speaking the Step Functions JSON 1.0 protocol for
// StartExecution and DescribeExecution. As the service does for Standard
// workflows: the same name and input as an existing running execution return
// that execution; the same name with another input is ExecutionAlreadyExists.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Execution { executionArn: string; stateMachineArn: string; name: string; input: string; startDate: number; status: string }

export class SfnSim {
  readonly requests: Array<{ target: string; body: any }> = [];
  readonly executions = new Map<string, Execution>();
  private server: Server | null = null;

  async listen(): Promise<string> {
    this.server = createServer((req, res) => {
      let text = '';
      req.on('data', (c) => { text += c; });
      req.on('end', () => {
        const target = String(req.headers['x-amz-target'] ?? '');
        const body = text ? JSON.parse(text) : {};
        this.requests.push({ target, body });
        const reply = (status: number, payload: unknown) => {
          res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': `req-${this.requests.length}` });
          res.end(JSON.stringify(payload));
        };
        const fail = (type: string, message: string) => reply(400, { __type: `com.amazonaws.swf.service.v2.model#${type}`, message });
        if (!req.headers.authorization?.startsWith('AWS4-HMAC-SHA256')) return fail('MissingAuthenticationTokenException', 'Missing Authentication Token');
        if (target === 'AWSStepFunctions.StartExecution') {
          const { stateMachineArn, name, input } = body;
          const m = /^arn:aws:states:([a-z0-9-]+):(\d{12}):stateMachine:([A-Za-z0-9_-]+)$/.exec(stateMachineArn ?? '');
          if (!m) return fail('InvalidArn', `Invalid Arn: '${stateMachineArn}'`);
          if (name !== undefined && !/^[A-Za-z0-9_-]{1,80}$/.test(name)) return fail('InvalidName', `Invalid Name: '${name}'`);
          try { JSON.parse(input ?? '{}'); } catch { return fail('InvalidExecutionInput', 'Invalid execution input'); }
          const execName = name ?? `auto-${this.executions.size + 1}`;
          const executionArn = `arn:aws:states:${m[1]}:${m[2]}:execution:${m[3]}:${execName}`;
          const existing = this.executions.get(executionArn);
          if (existing) {
            if (existing.input === (input ?? '{}') && existing.status === 'RUNNING') return reply(200, { executionArn, startDate: existing.startDate });
            return fail('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
          }
          const startDate = Date.now() / 1000;
          this.executions.set(executionArn, { executionArn, stateMachineArn, name: execName, input: input ?? '{}', startDate, status: 'RUNNING' });
          return reply(200, { executionArn, startDate });
        }
        if (target === 'AWSStepFunctions.DescribeExecution') {
          const e = this.executions.get(body.executionArn);
          if (!e) return fail('ExecutionDoesNotExist', `Execution Does Not Exist: '${body.executionArn}'`);
          return reply(200, { ...e, inputDetails: { included: true } });
        }
        return fail('UnknownOperationException', `unknown operation ${target}`);
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
