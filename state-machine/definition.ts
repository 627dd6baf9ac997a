// Takes the experiment state machine's definition out of the synthesized
// CloudFormation template, so local runs execute exactly what `cdk synth`
// produces. Bundling is skipped: the local runner binds handlers in-process.
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

/** Resolves Fn::Join over literal strings and tokens; each token becomes a dummy ARN naming the resource. */
export function resolveDefinitionString(value: unknown): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (!join) throw new Error(`DefinitionString is neither a string nor Fn::Join: ${JSON.stringify(value).slice(0, 200)}`);
  return join[1].map((part) => {
    if (typeof part === 'string') return part;
    const ref = part as { 'Fn::GetAtt'?: [string, string]; Ref?: string };
    const name = ref['Fn::GetAtt']?.[0] ?? ref.Ref ?? 'Token';
    return `arn:aws:lambda:us-east-1:123456789012:function:${name}`;
  }).join(join[0]);
}

export function experimentDefinition(): Definition {
  if (cached) return cached;
  const template = synthesizeTemplate();
  const machines = Object.values(template.findResources('AWS::StepFunctions::StateMachine'));
  if (machines.length !== 1) throw new Error(`expected one state machine in the stack, found ${machines.length}`);
  cached = JSON.parse(resolveDefinitionString(machines[0].Properties.DefinitionString)) as Definition;
  return cached;
}
