// ariadne launch: StartExecution on a deployed experiment machine. Inputs are
// validated with the StartExperiment schema before any call; each execution
// is named from what it runs, so launching again cannot start it twice.
import { createHash } from 'node:crypto';
import type { SFNClient } from '@aws-sdk/client-sfn';
import { InvalidInputError } from '../../core/errors.ts';
import { parseOrThrow } from '../../core/config/zod-errors.ts';
import { startRequestSchema, type StartExecutionInput } from '../../core/machine/contracts.ts';
import { fact } from '../../aws-facts/facts.ts';

const ARN = /^arn:aws[a-z-]*:states:([a-z]{2}(-[a-z]+)+-\d):(\d{12}):stateMachine:[A-Za-z0-9_-]{1,80}$/;

export function regionOf(stateMachineArn: string): string {
  const m = ARN.exec(stateMachineArn);
  if (!m)
    throw new InvalidInputError(
      '--state-machine-arn',
      stateMachineArn,
      `--state-machine-arn "${stateMachineArn}" is not a state machine ARN ` +
        '(arn:aws:states:REGION:ACCOUNT:stateMachine:NAME); the stack prints it as the StateMachineArn output',
    );
  return m[1];
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** One execution per repeat; the name is what it runs plus a hash of the exact input, at most 80 characters. */
export function launchRequests(base: unknown, repeat: number): Array<{ name: string; input: StartExecutionInput }> {
  const checked = parseOrThrow(startRequestSchema, base, 'input');
  return Array.from({ length: repeat }, (_, i) => {
    const input = {
      ...(base as StartExecutionInput),
      ...(repeat > 1 ? { agentSeed: (checked.agentSeed ?? 0) + i } : {}),
    };
    const hash = createHash('sha256').update(JSON.stringify(input)).digest('hex').slice(0, 10);
    const maze =
      'generator' in checked.maze
        ? `${checked.maze.generator}-${checked.maze.width ?? checked.maze.size}-s${checked.maze.seed}`
        : 'file';
    const tail = `-${slug(maze)}-r${i + 1}-${hash}`;
    const head = slug(`${checked.agent}-${checked.model ?? ''}`)
      .slice(0, fact('sfn.max-name-chars').value - tail.length)
      .replace(/-$/, '');
    return { name: `${head}${tail}`, input };
  });
}

/**
 * Starts each request unless its execution exists. StartExecution is idempotent for Standard workflows: the same
 * name and input as a RUNNING execution returns that execution with no error, so its answer alone cannot tell a
 * new start from a repeat; a DescribeExecution of the name first does (ExecutionDoesNotExist: not launched yet).
 */
export async function startExecutions(
  client: SFNClient,
  stateMachineArn: string,
  requests: Array<{ name: string; input: StartExecutionInput }>,
): Promise<Array<{ name: string; executionArn: string; already: boolean; status?: string }>> {
  const { DescribeExecutionCommand, StartExecutionCommand } = await import('@aws-sdk/client-sfn');
  const out = [];
  for (const r of requests) {
    const arn = stateMachineArn.replace(':stateMachine:', ':execution:') + `:${r.name}`;
    try {
      const existing = await client.send(new DescribeExecutionCommand({ executionArn: arn }));
      out.push({ name: r.name, executionArn: arn, already: true, status: existing.status });
      continue;
    } catch (err) {
      if ((err as Error).name !== 'ExecutionDoesNotExist') throw err;
    }
    try {
      const res = await client.send(
        new StartExecutionCommand({ stateMachineArn, name: r.name, input: JSON.stringify(r.input) }),
      );
      out.push({ name: r.name, executionArn: res.executionArn!, already: false });
    } catch (err) {
      // Launched by someone else between the two calls and already finished: the name is taken on purpose.
      if ((err as Error).name !== 'ExecutionAlreadyExists') throw err;
      out.push({ name: r.name, executionArn: arn, already: true });
    }
  }
  return out;
}

export async function describe(client: SFNClient, executionArn: string) {
  const { DescribeExecutionCommand } = await import('@aws-sdk/client-sfn');
  return client.send(new DescribeExecutionCommand({ executionArn }));
}
