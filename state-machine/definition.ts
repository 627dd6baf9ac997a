// Takes the experiment state machine's definition out of the synthesized
// CloudFormation template, so local runs execute exactly what `cdk synth`
// produces. Bundling is skipped: the local runner binds handlers in-process.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Template } from 'aws-cdk-lib/assertions';
import { DEFAULT_ORCHESTRATION, type Orchestration } from '../core/machine/states.ts';

export type Definition = Record<string, unknown> & { StartAt: string; States: Record<string, Record<string, unknown>> };

/** The stack's machines: the experiment machine, its Express turn machine (nested orchestration), the sweeps'. */
export interface Machines {
  Experiments: Definition;
  ExperimentsChunks?: Definition;
  Sweeps: Definition;
}

const cached = new Map<Orchestration, Machines>();

/**
 * CDK is loaded here, on demand: at the top it would cost every process that runs an experiment (each CLI command)
 * most of a second of CPU to load aws-cdk-lib, though synthesis happens once, in a child, and is cached on disk.
 */
export async function synthesizeTemplate(orchestration: Orchestration = DEFAULT_ORCHESTRATION): Promise<Template> {
  const [{ App }, { Template }, { AriadneStack }] = await Promise.all([
    import('aws-cdk-lib'),
    import('aws-cdk-lib/assertions'),
    import('../lib/ariadne-stack.ts'),
  ]);
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new AriadneStack(app, 'Ariadne', { orchestration });
  return Template.fromStack(stack);
}

const PSEUDO: Record<string, string> = {
  'AWS::Partition': 'aws',
  'AWS::Region': 'us-east-1',
  'AWS::AccountId': '123456789012',
};

/**
 * Resolves Fn::Join over literal strings, pseudo parameters and tokens; each
 * token becomes a dummy ARN naming the resource.
 */
function resolveDefinitionString(value: unknown): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (!join)
    throw new Error(`DefinitionString is neither a string nor Fn::Join: ${JSON.stringify(value).slice(0, 200)}`);
  return join[1]
    .map((part) => {
      if (typeof part === 'string') return part;
      const ref = part as { 'Fn::GetAtt'?: [string, string]; Ref?: string };
      if (ref.Ref && Object.hasOwn(PSEUDO, ref.Ref)) return PSEUDO[ref.Ref];
      const name = ref['Fn::GetAtt']?.[0] ?? ref.Ref ?? 'Token';
      return `arn:aws:lambda:us-east-1:123456789012:function:${name}`;
    })
    .join(join[0]);
}

/** A state machine of the template, by the logical id prefix of its construct path (e.g. "Experiments", "Sweeps"). */
export function machineDefinition(template: Template, construct: keyof Machines): Definition {
  const machines = Object.entries(template.findResources('AWS::StepFunctions::StateMachine')).filter(([id]) =>
    id.startsWith(`${construct}Machine`),
  );
  if (machines.length !== 1)
    throw new Error(`expected one ${construct} state machine in the stack, found ${machines.length}`);
  const properties = machines[0][1].Properties as { DefinitionString: unknown };
  return JSON.parse(resolveDefinitionString(properties.DefinitionString)) as Definition;
}

/**
 * The experiment machine's definition, synthesized once per process, in a
 * child process: CDK synthesis needs a few hundred MB that a long run (a
 * sweep, 32 experiments at once) should not keep.
 */
export function experimentDefinition(orchestration: Orchestration = DEFAULT_ORCHESTRATION): Definition {
  return machines(orchestration).Experiments;
}

/** The Express turn machine the experiment machine's chunks run on (nested orchestration), synthesized with it. */
export function chunkDefinition(orchestration: Orchestration = DEFAULT_ORCHESTRATION): Definition | undefined {
  return machines(orchestration).ExperimentsChunks;
}

/** The sweep machine's definition, whose Map the sweeps follow (sweep-runner.ts), synthesized with the above. */
export function sweepDefinition(): Definition {
  return machines(DEFAULT_ORCHESTRATION).Sweeps;
}

function machines(orchestration: Orchestration): Machines {
  let m = cached.get(orchestration);
  if (!m) cached.set(orchestration, (m = synthesized('definition', orchestration) as Machines));
  return m;
}

/** The stack's resources as `cdk synth` writes them (bundling skipped), e.g. for the idle-cost bench. */
export type StackTemplate = { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };

/** The whole synthesized template, synthesized and cached the way experimentDefinition() is. */
export function stackTemplate(orchestration: Orchestration = DEFAULT_ORCHESTRATION): StackTemplate {
  return synthesized('template', orchestration) as StackTemplate;
}

function synthesized(kind: 'definition' | 'template', orchestration: Orchestration): unknown {
  // Synthesis takes seconds: the result is kept in the OS temp dir under a hash of everything it depends on
  // (the stack's sources and the aws-cdk-lib version), so the next process reads it instead.
  const file = join(tmpdir(), `ariadne-${kind}-${orchestration}-${definitionInputsHash()}.json`);
  if (existsSync(file)) {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      /* a torn or foreign file: synthesize again */
    }
  }
  const script = fileURLToPath(new URL('./synthesize-definition.ts', import.meta.url));
  const out = execFileSync(process.execPath, ['--import', 'tsx', script, kind, orchestration], {
    // `--import tsx` is resolved from the working directory: the package's own, wherever the CLI was started
    cwd: fileURLToPath(new URL('../', import.meta.url)),
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const value: unknown = JSON.parse(out);
  const partial = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(partial, out);
    renameSync(partial, file); // atomic: a concurrent reader sees the whole file or none
  } catch {
    /* a read-only temp dir only costs the next process a synthesis */
  }
  return value;
}

/** sha256 over the sources the definition is synthesized from, and the CDK library's version. */
function definitionInputsHash(): string {
  const hash = createHash('sha256');
  const root = new URL('../', import.meta.url);
  // the stack, the machines' vocabulary (states, tasks, contracts), the sweep rules, and this folder
  for (const dir of ['lib/', 'core/machine/', 'core/sweeps/', 'state-machine/']) {
    const path = fileURLToPath(new URL(dir, root));
    for (const name of readdirSync(path)
      .filter((f) => f.endsWith('.ts'))
      .sort())
      hash.update(name).update(readFileSync(join(path, name)));
  }
  const require = createRequire(import.meta.url);
  const cdk = JSON.parse(readFileSync(require.resolve('aws-cdk-lib/package.json'), 'utf8')) as { version: string };
  hash.update(cdk.version);
  return hash.digest('hex').slice(0, 24);
}
