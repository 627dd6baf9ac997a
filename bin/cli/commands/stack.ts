// The commands for a deployed stack: launch experiments with Step Functions
// StartExecution, and show the status of one execution.
import { Option, type Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import { SEEDLESS_BASELINES } from '../../../core/providers/baselines.ts';
import { withExample } from '../help.ts';
import { addExperimentOptions, endpointOption, intOption, jsonOption, type ExperimentOptions } from '../options.ts';
import { addLiveOptions, liveStatus, type LiveOptions } from './live.ts';
import { outputFormat } from '../table-output.ts';
import { csvText } from '../../../reports/csv.ts';
import { requestFromOptions } from '../experiment-input.ts';
import { launchRequests, regionOf, startExecutions, describe as describeExecution } from '../launch.ts';
import { resolveStack } from '../aws-stack.ts';

interface LaunchOptions extends ExperimentOptions {
  stateMachineArn?: string;
  stack: string;
  repeat: number;
  endpoint?: string;
  dryRun?: boolean;
  json?: boolean;
}

async function launch(o: LaunchOptions): Promise<void> {
  if (o.endpoint !== undefined) {
    try {
      new URL(o.endpoint);
    } catch {
      throw new InvalidInputError('--endpoint', o.endpoint, `--endpoint "${o.endpoint}" is not a URL`);
    }
  }
  // as every other --aws command: the stack's outputs name the experiment machine (DescribeStacks, in AWS_REGION or
  // the profile's Region: --region is Bedrock's, a setting of the experiments)
  const stateMachineArn = o.stateMachineArn ?? (await resolveStack({ stack: o.stack })).stateMachineArn;
  const region = regionOf(stateMachineArn);
  const { request } = requestFromOptions(o);
  if (o.repeat > 1 && !o.provider && SEEDLESS_BASELINES.includes(o.agent as never))
    throw new InvalidInputError(
      '--repeat',
      o.repeat,
      `--repeat ${o.repeat} with --agent ${o.agent}: ${o.agent} has no randomness, so its ${o.repeat} runs would be ` +
        'one observation repeated; vary the maze (--seed) instead, or leave --repeat out',
    );
  const requests = launchRequests(request, o.repeat);
  if (o.dryRun) {
    const calls = requests.map((r) => ({
      stateMachineArn,
      name: r.name,
      input: JSON.stringify(r.input),
    }));
    // without --json: one request a line, each as the AWS CLI's --cli-input-json takes it
    process.stdout.write(
      o.json ? `${JSON.stringify(calls, null, 2)}\n` : calls.map((c) => `${JSON.stringify(c)}\n`).join(''),
    );
    return;
  }
  const { SFNClient } = await import('@aws-sdk/client-sfn');
  const client = new SFNClient({ region, ...(o.endpoint ? { endpoint: o.endpoint } : {}) });
  const started = await startExecutions(client, stateMachineArn, requests);
  if (o.json) {
    process.stdout.write(`${JSON.stringify(started, null, 2)}\n`);
    return;
  }
  for (const r of started)
    process.stdout.write(
      `${r.already ? `already launched${r.status ? ` (${r.status})` : ''}` : 'started'} ${r.executionArn}\n`,
    );
}

async function status(arn: string | undefined, o: LiveOptions & { endpoint?: string }): Promise<void> {
  if (arn === undefined) return liveStatus(o);
  const m = /^arn:aws[a-z-]*:states:([a-z]{2}(-[a-z]+)+-\d):\d{12}:execution:/.exec(arn);
  if (!m)
    throw new InvalidInputError(
      'execution-arn',
      arn,
      `"${arn}" is not an execution ARN (arn:aws:states:REGION:ACCOUNT:execution:MACHINE:NAME)`,
    );
  const { SFNClient } = await import('@aws-sdk/client-sfn');
  const client = new SFNClient({ region: m[1], ...(o.endpoint ? { endpoint: o.endpoint } : {}) });
  const d = await describeExecution(client, arn);
  const format = outputFormat(o);
  if (format !== 'table') {
    const { executionArn, name, status: state, startDate, stopDate, error, cause } = d;
    const execution = { executionArn, name, status: state, startDate, stopDate, error, cause };
    process.stdout.write(format === 'json' ? `${JSON.stringify(execution, null, 2)}\n` : csvText([execution]));
    return;
  }
  process.stdout.write(
    `${d.status} ${d.name}\nstarted ${d.startDate?.toISOString()}` +
      `${d.stopDate ? `\nstopped ${d.stopDate.toISOString()}` : ''}` +
      `${d.error ? `\nerror ${d.error}: ${d.cause ?? ''}` : ''}\n`,
  );
}

export function registerStackCommands(program: Command): void {
  const launchCommand = program
    .command('launch')
    .description(
      'start experiments on a deployed stack with Step Functions StartExecution ' +
        '(validated first; named so a relaunch cannot run one twice)',
    );
  addExperimentOptions(launchCommand)
    .option('--stack <name>', 'the deployed stack whose output StateMachineArn names the machine', 'Ariadne')
    .option('--state-machine-arn <arn>', "the experiment state machine (default: the stack's output StateMachineArn)")
    .addOption(
      new Option('--repeat <n>', 'how many experiments (agent seeds seed, seed+1, ...)')
        .default(1)
        .argParser(intOption('--repeat', 1, 1000)),
    )
    .addOption(endpointOption('Step Functions endpoint override (a local server, a VPC endpoint)'))
    .option('--dry-run', 'print the StartExecution requests without sending them')
    .addOption(jsonOption('the executions started (with --dry-run: the requests) as one JSON array'))
    .action(launch);
  withExample(launchCommand, 'ariadne launch --agent random --repeat 3 --dry-run');

  const statusCommand = program
    .command('status')
    .description(
      'without an argument: the experiments running now, their progress and cost so far, stale ones flagged, ' +
        'the ones waiting out a provider outage with when it began and when the next try is; ' +
        'with an execution ARN: that deployed execution (status, times, error)',
    )
    .argument('[execution-arn]');
  addLiveOptions(statusCommand)
    .addOption(endpointOption('with an execution ARN: Step Functions endpoint override'))
    .action(status);
  withExample(
    statusCommand,
    'ariadne status ' +
      'arn:aws:states:us-east-1:123456789012:execution:AriadneExperiments:random-medium-30-s7-r1-2f41872be7',
  );
}
