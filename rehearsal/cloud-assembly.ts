// The cloud assembly `cdk deploy` would upload: the synthesized template and,
// per Lambda function, the bundled asset directory (the files CDK zips), not
// the TypeScript sources. The deploy rehearsal runs these bundles as they are.
import { spawn } from 'node:child_process';
import { FAKE_ENVIRONMENT } from '../lib/template-values.ts';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the CDK app (cdk.json) and the node_modules whose @aws-sdk stands in for Lambda's. */
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A CloudFormation value as the template holds it: a string, a number, or an intrinsic ({ Ref }, Fn::Join...). */
type CfnValue = unknown;

export interface AssemblyFunction {
  logicalId: string;
  /** As the template names it: "<module>.<export>", e.g. "index.handler". */
  handler: string;
  /** Absolute path of the bundled asset (what Lambda unpacks into /var/task). */
  assetDir: string;
  runtime: string;
  timeoutSeconds: number;
  memoryMb: number;
  /** Environment.Variables, unresolved: tokens stay CloudFormation intrinsics for the caller's resolver. */
  environment: Record<string, CfnValue>;
  /** The execution role's logical id (Role: Fn::GetAtt [id, Arn]); null when the template names a role ARN. */
  roleLogicalId: string | null;
  /** LoggingConfig.LogFormat: with JSON, Lambda also sets AWS_LAMBDA_LOG_FORMAT for the runtime. */
  logFormat: 'Text' | 'JSON';
  /** LoggingConfig.ApplicationLogLevel (JSON only): Lambda gives it to the runtime as AWS_LAMBDA_LOG_LEVEL. */
  applicationLogLevel: string | null;
  /** The construct path (aws:cdk:path), for messages. */
  cdkPath: string | null;
}

interface SkippedFunction {
  logicalId: string;
  handler: string;
  reason: string;
}

export interface CloudAssembly {
  dir: string;
  stackName: string;
  template: { Resources: Record<string, TemplateResource> } & Record<string, unknown>;
  functions: AssemblyFunction[];
  skipped: SkippedFunction[];
}

interface TemplateResource {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
}

/** The CDK CLI failed to synthesize the app. */
class SynthFailedError extends Error {
  override readonly name = 'SynthFailedError';
  constructor(
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`cdk synth failed (exit ${exitCode}): ${stderr.trim().split('\n').slice(-5).join(' | ')}`);
  }
}

/** A function's code is not in the assembly: the rehearsal would run something other than what deploys. */
export class AssetMissingError extends Error {
  override readonly name = 'AssetMissingError';
  constructor(
    readonly logicalId: string,
    readonly detail: string,
  ) {
    super(`function ${logicalId}: ${detail}`);
  }
}

/** The assembly has no stack of that name, or its template is not where the manifest says. */
export class AssemblyError extends Error {
  override readonly name = 'AssemblyError';
}

/** Lambda's Node runtimes try these extensions, in this order, for the handler's module. */
const HANDLER_EXTENSIONS = ['.js', '.mjs', '.cjs'] as const;

/** The file a handler string names in an asset dir ("index.handler" -> index.js|.mjs|.cjs), or null. */
function handlerModuleFile(assetDir: string, handler: string): string | null {
  const dot = handler.indexOf('.', handler.lastIndexOf('/') + 1);
  if (dot <= 0) return null;
  const base = join(assetDir, handler.slice(0, dot));
  for (const ext of HANDLER_EXTENSIONS) if (existsSync(base + ext)) return base + ext;
  return null;
}

/**
 * Synthesizes the app with the CDK CLI (`cdk synth --quiet --output DIR`, bundling included) into `outDir`
 * or a new temp dir, then reads it (see readAssembly). An `outDir` that already holds an assembly
 * (manifest.json) is reused as it is, without synthesizing again.
 */
export async function synthesizeAssembly(outDir?: string, opts: { stackName?: string } = {}): Promise<CloudAssembly> {
  const dir = outDir ?? mkdtempSync(join(tmpdir(), 'ariadne-rehearsal-'));
  if (!existsSync(join(dir, 'manifest.json'))) await runCdkSynth(dir);
  return readAssembly(dir, opts);
}

function synthEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, AWS_REGION: FAKE_ENVIRONMENT.region };
  env.AWS_DEFAULT_REGION = FAKE_ENVIRONMENT.region;
  delete env.CDK_DEFAULT_REGION;
  delete env.CDK_DEFAULT_ACCOUNT;
  return env;
}

function runCdkSynth(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['cdk', 'synth', '--quiet', '--output', dir], {
      cwd: REPO_ROOT,
      // The stack is synthesized for the rehearsal's fake Region: the CLI hands the app (bin/app.ts) the Region of
      // the AWS configuration it finds, else us-east-1, and the template bakes it into ARNs; the resolver must give
      // AWS::Region the same. The account stays a token (no credentials here); the resolver gives it the fake one.
      env: synthEnvironment(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new SynthFailedError(code, stderr))));
  });
}

/**
 * Reads a synthesized assembly: the stack's template and every Lambda function that is ours (bundled by
 * NodejsFunction), with its asset dir; CDK's own functions are listed in `skipped` with the reason. Links the
 * repository's @aws-sdk into DIR/node_modules, as Lambda's Node runtime provides the SDK the bundles leave out.
 */
export function readAssembly(dir: string, opts: { stackName?: string } = {}): CloudAssembly {
  const stackName = opts.stackName ?? 'Ariadne';
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    artifacts?: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  const artifact = manifest.artifacts?.[stackName];
  if (artifact?.type !== 'aws:cloudformation:stack' || !artifact.properties?.templateFile)
    throw new AssemblyError(`no stack "${stackName}" in the assembly at ${dir}`);
  const templatePath = join(dir, artifact.properties.templateFile);
  if (!existsSync(templatePath)) throw new AssemblyError(`template ${templatePath} is missing`);
  const template = JSON.parse(readFileSync(templatePath, 'utf8')) as CloudAssembly['template'];

  const functions: AssemblyFunction[] = [];
  const skipped: SkippedFunction[] = [];
  for (const [logicalId, res] of Object.entries(template.Resources)) {
    if (res.Type !== 'AWS::Lambda::Function') continue;
    const props = res.Properties ?? {};
    const handler = typeof props.Handler === 'string' ? props.Handler : '';
    const meta = res.Metadata ?? {};
    const notOurs = frameworkReason(handler, props, meta);
    if (notOurs) {
      skipped.push({ logicalId, handler, reason: notOurs });
      continue;
    }
    functions.push(describeFunction(dir, logicalId, props, meta));
  }
  linkRuntimeSdk(dir);
  return { dir, stackName, template, functions, skipped };
}

/** Why a function is CDK's rather than ours, or null when it is ours. */
function frameworkReason(handler: string, props: Record<string, unknown>, meta: Record<string, unknown>) {
  if (handler.startsWith('framework.'))
    return 'CDK custom-resource provider framework (cr.Provider onEvent): CDK code that calls our function';
  const code = props.Code as Record<string, unknown> | undefined;
  if (code && 'ZipFile' in code) return 'inline code (Code.ZipFile): CDK-generated, no bundled asset';
  if (meta['aws:asset:is-bundled'] === false)
    return 'an unbundled asset (not a NodejsFunction bundle): CDK-provided code';
  return null;
}

function describeFunction(
  dir: string,
  logicalId: string,
  props: Record<string, unknown>,
  meta: Record<string, unknown>,
): AssemblyFunction {
  const handler = typeof props.Handler === 'string' ? props.Handler : '';
  const assetPath = meta['aws:asset:path'];
  if (typeof assetPath !== 'string' || meta['aws:asset:property'] !== 'Code')
    throw new AssetMissingError(logicalId, 'no aws:asset:path metadata for its Code (synthesized without assets?)');
  const assetDir = join(dir, assetPath);
  if (!existsSync(assetDir)) throw new AssetMissingError(logicalId, `its asset ${assetPath} is not in ${dir}`);
  if (!handlerModuleFile(assetDir, handler))
    throw new AssetMissingError(logicalId, `asset ${assetPath} has no module for handler "${handler}"`);
  const role = props.Role as { 'Fn::GetAtt'?: [string, string] } | undefined;
  const logging = props.LoggingConfig as { LogFormat?: string; ApplicationLogLevel?: string } | undefined;
  return {
    logicalId,
    handler,
    assetDir,
    runtime: String(props.Runtime),
    // CloudFormation's defaults when a property is absent: 3 s, 128 MB.
    timeoutSeconds: Number(props.Timeout ?? 3),
    memoryMb: Number(props.MemorySize ?? 128),
    environment: (props.Environment as { Variables?: Record<string, CfnValue> } | undefined)?.Variables ?? {},
    roleLogicalId: role?.['Fn::GetAtt']?.[0] ?? null,
    logFormat: logging?.LogFormat === 'JSON' ? 'JSON' : 'Text',
    applicationLogLevel: logging?.LogFormat === 'JSON' ? (logging.ApplicationLogLevel ?? null) : null,
    cdkPath: typeof meta['aws:cdk:path'] === 'string' ? meta['aws:cdk:path'] : null,
  };
}

/**
 * Bundles keep `@aws-sdk/*` external (Lambda's Node runtime ships the SDK v3); Node finds it by walking up
 * from the asset dir, so DIR/node_modules/@aws-sdk -> the repository's copy stands in for the runtime's.
 */
function linkRuntimeSdk(dir: string): void {
  const link = join(dir, 'node_modules', '@aws-sdk');
  if (existsSync(link)) return;
  const sdk = join(REPO_ROOT, 'node_modules', '@aws-sdk');
  if (!existsSync(sdk)) throw new AssemblyError(`${sdk} is missing: run npm ci to stand in for the runtime's SDK`);
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(sdk, link, 'dir');
}
