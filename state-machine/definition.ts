// Takes the experiment state machine's definition out of the synthesized
// CloudFormation template, so local runs execute exactly what `cdk synth`
// produces. Bundling is skipped: the local runner binds handlers in-process.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AriadneStack } from '../lib/ariadne-stack.ts';

export type Definition = Record<string, unknown> & { StartAt: string; States: Record<string, Record<string, unknown>> };

let cached: Definition | null = null;

export function synthesizeTemplate(): Template {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new AriadneStack(app, 'Ariadne');
  return Template.fromStack(stack);
}

const PSEUDO: Record<string, string> = { 'AWS::Partition': 'aws', 'AWS::Region': 'us-east-1', 'AWS::AccountId': '123456789012' };

/** Resolves Fn::Join over literal strings, pseudo parameters and tokens; each token becomes a dummy ARN naming the resource. */
export function resolveDefinitionString(value: unknown): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (!join) throw new Error(`DefinitionString is neither a string nor Fn::Join: ${JSON.stringify(value).slice(0, 200)}`);
  return join[1].map((part) => {
    if (typeof part === 'string') return part;
    const ref = part as { 'Fn::GetAtt'?: [string, string]; Ref?: string };
    if (ref.Ref && Object.hasOwn(PSEUDO, ref.Ref)) return PSEUDO[ref.Ref];
    const name = ref['Fn::GetAtt']?.[0] ?? ref.Ref ?? 'Token';
    return `arn:aws:lambda:us-east-1:123456789012:function:${name}`;
  }).join(join[0]);
}

/** A state machine of the template, by the logical id prefix of its construct path (e.g. "Experiments", "Sweeps"). */
export function machineDefinition(template: Template, construct: 'Experiments' | 'Sweeps'): Definition {
  const machines = Object.entries(template.findResources('AWS::StepFunctions::StateMachine')).filter(([id]) => id.startsWith(`${construct}Machine`));
  if (machines.length !== 1) throw new Error(`expected one ${construct} state machine in the stack, found ${machines.length}`);
  return JSON.parse(resolveDefinitionString(machines[0][1].Properties.DefinitionString)) as Definition;
}

/**
 * The experiment machine's definition, synthesized once per process, in a
 * child process: CDK synthesis needs a few hundred MB that a long run (a
 * sweep, 32 experiments at once) should not keep.
 */
export function experimentDefinition(): Definition {
  if (cached) return cached;
  const script = fileURLToPath(new URL('./synthesize-definition.ts', import.meta.url));
  const out = execFileSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20, stdio: ['ignore', 'pipe', 'pipe'] });
  cached = JSON.parse(out) as Definition;
  return cached;
}
