// CDK app entry (cdk.json "app").
import { App } from 'aws-cdk-lib';
import { AriadneStack } from '../lib/ariadne-stack.ts';
import { STATE_MACHINE_LOG_LEVELS, type StateMachineLogLevel } from '../lib/observability.ts';
import { fact } from '../aws-facts/facts.ts';
import { envString } from '../core/config/environment.ts';
import { ORCHESTRATIONS, type Orchestration } from '../core/machine/states.ts';

const app = new App();
const context = (name: string) => app.node.tryGetContext(name) as string | number | boolean | undefined;

/** A numeric context value within [min, max], or undefined when not given. */
function numberContext(name: string, min: number, max: number, what: string): number | undefined {
  const value = context(name);
  if (value === undefined) return undefined;
  if (!(Number(value) >= min && Number(value) <= max))
    throw new Error(`context ${name} must be ${what} from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** A comma-separated context list ("a,b"), or undefined when not given. */
function listContext(name: string): string[] | undefined {
  const value = context(name);
  if (value === undefined) return undefined;
  const list = String(value)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (list.length === 0) throw new Error(`context ${name} must list at least one value, got ${JSON.stringify(value)}`);
  return list;
}

/** true/false context; anything else is refused rather than read as false. */
function booleanContext(name: string): boolean | undefined {
  const value = context(name);
  if (value === undefined) return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`context ${name} must be true or false, got ${JSON.stringify(value)}`);
}

/** One of `choices`, or undefined when not given; anything else is refused. */
function choiceContext<T extends string>(name: string, choices: readonly T[]): T | undefined {
  const value = context(name);
  if (value === undefined) return undefined;
  if (!choices.includes(value as T))
    throw new Error(`context ${name} must be one of ${choices.join(', ')}, got ${JSON.stringify(value)}`);
  return value as T;
}

new AriadneStack(app, 'Ariadne', {
  env: { account: envString('CDK_DEFAULT_ACCOUNT'), region: envString('CDK_DEFAULT_REGION') },
  // -c vpcId=vpc-0123... puts the database into an existing VPC (a lookup: needs credentials at synth).
  vpcId: context('vpcId') as string | undefined,
  // -c parametersKmsKeyArn=arn:aws:kms:...:key/... when the SecureStrings use a customer managed key.
  parametersKmsKeyArn: context('parametersKmsKeyArn') as string | undefined,
  // -c executionTimeoutMinutes=240 raises the hard limit of one execution (default 180).
  executionTimeoutMinutes: numberContext(
    'executionTimeoutMinutes',
    1,
    fact('sfn.max-standard-execution-seconds').value / 60,
    'a number of minutes',
  ),
  // -c databaseAutoPauseMinutes=60: idle time before the database pauses (default 5; AWS allows 5 to 1440).
  databaseAutoPauseMinutes: numberContext(
    'databaseAutoPauseMinutes',
    fact('aurora.auto-pause-min-seconds').value / 60,
    fact('aurora.auto-pause-max-seconds').value / 60,
    'a number of minutes',
  ),
  // -c databaseMaxCapacity=8: the database's ceiling in ACUs (default 4; Aurora allows up to 256).
  databaseMaxCapacity: numberContext('databaseMaxCapacity', 1, 256, 'a number of ACUs'),
  // -c removeData=true: `cdk destroy` deletes the database and its secret too (default: both are kept).
  removeData: booleanContext('removeData'),
  // -c dashboard=true adds the CloudWatch dashboard ($3/month beyond an account's 3 free ones).
  dashboard: booleanContext('dashboard'),
  // -c bedrockModelIds=us.anthropic...,amazon.nova-lite-v1:0: model ids and inference profile ids.
  bedrockModelIds: listContext('bedrockModelIds'),
  // -c bedrockRegions=us-east-1,us-east-2,us-west-2: where the inference profiles route (lib/bedrock.ts).
  bedrockRegions: listContext('bedrockRegions'),
  // -c tracing=true: active X-Ray tracing on every function and both state machines (default off).
  tracing: booleanContext('tracing'),
  // -c stateMachineLogLevel=ALL: every state transition to CloudWatch Logs (default ERROR: failures only).
  stateMachineLogLevel: choiceContext<StateMachineLogLevel>('stateMachineLogLevel', STATE_MACHINE_LOG_LEVELS),
  // -c orchestration=standard: every turn in the Standard execution's history (default nested: chunks of turns in
  // Express executions, a tenth of the cost; docs/architecture.md).
  orchestration: choiceContext<Orchestration>('orchestration', ORCHESTRATIONS),
});
