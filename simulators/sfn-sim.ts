// A local server speaking the Step Functions JSON 1.0 protocol for
// StartExecution and DescribeExecution. As the service does for Standard
// workflows: the same name and input as an existing running execution return
// that execution; the same name with another input is ExecutionAlreadyExists.
import { AwsJsonServer, type AwsJsonReply } from './aws-json-server.ts';
import type { AwsCall, RequestAuthorizer } from '../rehearsal/authorizer.ts';

interface Execution {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  input: string;
  startDate: number;
  status: string;
}

export class SfnSim extends AwsJsonServer {
  readonly executions = new Map<string, Execution>();

  constructor(opts: { authorizer?: RequestAuthorizer } = {}) {
    super('1.0', 'com.amazonaws.swf.service.v2.model#', opts.authorizer);
  }

  /**
   * Resource types per action (Service Authorization Reference for Step Functions): StartExecution on the
   * stateMachine, DescribeExecution and StopExecution on the execution; SendTask* have none, so "*".
   */
  protected calls(target: string, body: any): AwsCall[] {
    const action = target.replace(/^AWSStepFunctions\./, '');
    const resource: Record<string, unknown> = {
      StartExecution: body.stateMachineArn,
      DescribeExecution: body.executionArn,
      StopExecution: body.executionArn,
      SendTaskSuccess: '*',
      SendTaskFailure: '*',
      SendTaskHeartbeat: '*',
    };
    const arn = resource[action];
    // A malformed ARN is the operation's own validation error (InvalidArn), answered after authorization passes.
    return typeof arn === 'string' && (arn === '*' || arn.startsWith('arn:'))
      ? [{ action: `states:${action}`, resource: arn }]
      : [];
  }

  protected operation(target: string, body: any): AwsJsonReply {
    if (target === 'AWSStepFunctions.StartExecution') {
      const { stateMachineArn, name, input } = body;
      const m = /^arn:aws:states:([a-z0-9-]+):(\d{12}):stateMachine:([A-Za-z0-9_-]+)$/.exec(stateMachineArn ?? '');
      if (!m) return this.error('InvalidArn', `Invalid Arn: '${stateMachineArn}'`);
      if (name !== undefined && !/^[A-Za-z0-9_-]{1,80}$/.test(name))
        return this.error('InvalidName', `Invalid Name: '${name}'`);
      try {
        JSON.parse(input ?? '{}');
      } catch {
        return this.error('InvalidExecutionInput', 'Invalid execution input');
      }
      const execName = name ?? `auto-${this.executions.size + 1}`;
      const executionArn = `arn:aws:states:${m[1]}:${m[2]}:execution:${m[3]}:${execName}`;
      const existing = this.executions.get(executionArn);
      if (existing) {
        if (existing.input === (input ?? '{}') && existing.status === 'RUNNING')
          return { status: 200, payload: { executionArn, startDate: existing.startDate } };
        return this.error('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
      }
      const startDate = Date.now() / 1000;
      this.executions.set(executionArn, {
        executionArn,
        stateMachineArn,
        name: execName,
        input: input ?? '{}',
        startDate,
        status: 'RUNNING',
      });
      return { status: 200, payload: { executionArn, startDate } };
    }
    if (target === 'AWSStepFunctions.DescribeExecution') {
      const e = this.executions.get(body.executionArn);
      if (!e) return this.error('ExecutionDoesNotExist', `Execution Does Not Exist: '${body.executionArn}'`);
      return { status: 200, payload: { ...e, inputDetails: { included: true } } };
    }
    return this.error('UnknownOperationException', `unknown operation ${target}`);
  }
}
