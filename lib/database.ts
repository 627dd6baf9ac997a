// The experiment database in AWS: Aurora PostgreSQL Serverless v2 in private
// subnets, credentials generated into Secrets Manager, RDS Proxy (TLS
// required) in front for the Lambdas' many short connections, reachable only
// from the Lambdas' security group; migrations applied at every deploy.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CustomResource, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Port, SecurityGroup, SubnetType, type IVpc } from 'aws-cdk-lib/aws-ec2';
import {
  AuroraPostgresEngineVersion,
  ClusterInstance,
  Credentials,
  DatabaseCluster,
  DatabaseClusterEngine,
  type DatabaseProxy,
} from 'aws-cdk-lib/aws-rds';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { handlerFunction, LOG_RETENTION } from './handler-functions.ts';

const DATABASE_NAME = 'ariadne';
const MIGRATIONS = fileURLToPath(new URL('../migrations/', import.meta.url));

/** A hash of the SQL files: a changed or added migration makes the custom resource run again. */
export function migrationsChecksum(): string {
  const h = createHash('sha256');
  for (const f of readdirSync(MIGRATIONS)
    .filter((n) => n.endsWith('.sql'))
    .sort())
    h.update(f).update(readFileSync(`${MIGRATIONS}${f}`));
  return h.digest('hex');
}

export interface ExperimentDatabaseProps {
  vpc: IVpc;
}

export class ExperimentDatabase extends Construct {
  readonly cluster: DatabaseCluster;
  readonly proxy: DatabaseProxy;
  /** Put every function that talks to the database in this group: the only way in. */
  readonly clientSecurityGroup: SecurityGroup;
  readonly migrateFunction: IFunction;

  constructor(scope: Construct, id: string, props: ExperimentDatabaseProps) {
    super(scope, id);
    this.clientSecurityGroup = new SecurityGroup(this, 'Clients', {
      vpc: props.vpc,
      description: 'Ariadne Lambdas: the only clients of the database',
      allowAllOutbound: true,
    });
    const dbGroup = new SecurityGroup(this, 'Database', {
      vpc: props.vpc,
      description: 'Ariadne Aurora cluster and RDS Proxy',
      allowAllOutbound: false,
    });
    dbGroup.addIngressRule(this.clientSecurityGroup, Port.tcp(5432), 'Ariadne Lambdas');
    // addProxy below lets the proxy in to the cluster; it also needs to get out to it.
    dbGroup.addEgressRule(dbGroup, Port.tcp(5432), 'RDS Proxy to the cluster');

    this.cluster = new DatabaseCluster(this, 'Cluster', {
      engine: DatabaseClusterEngine.auroraPostgres({ version: AuroraPostgresEngineVersion.VER_17_5 }),
      credentials: Credentials.fromGeneratedSecret('ariadne'),
      defaultDatabaseName: DATABASE_NAME,
      writer: ClusterInstance.serverlessV2('Writer'),
      serverlessV2MinCapacity: 0.5,
      serverlessV2MaxCapacity: 8,
      vpc: props.vpc,
      vpcSubnets: { subnetType: SubnetType.PRIVATE_WITH_EGRESS },
      securityGroups: [dbGroup],
      storageEncrypted: true,
      deletionProtection: true,
      iamAuthentication: true,
      backup: { retention: Duration.days(7) },
      cloudwatchLogsExports: ['postgresql'],
      // Published numbers come from this database: never delete it with the stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Monthly rotation of the generated password; RDS Proxy reads the secret, so clients never notice.
    this.cluster.addRotationSingleUser({ automaticallyAfter: Duration.days(30) });
    this.proxy = this.cluster.addProxy('Proxy', {
      secrets: [this.cluster.secret!],
      vpc: props.vpc,
      securityGroups: [dbGroup],
      requireTLS: true,
      debugLogging: false,
    });

    const migrate = (this.migrateFunction = handlerFunction(this, 'MigrateFn', {
      file: 'migrate-database.ts',
      exportName: 'handler',
      timeoutSeconds: 300,
      environment: this.clientEnvironment(),
      vpc: props.vpc,
      securityGroups: [this.clientSecurityGroup],
      copyMigrations: true,
    }));
    this.grantConnect(migrate);
    const provider = new Provider(this, 'MigrationsProvider', {
      onEventHandler: migrate,
      logGroup: new LogGroup(this, 'MigrationsProviderLogs', {
        retention: LOG_RETENTION,
        removalPolicy: RemovalPolicy.DESTROY,
      }),
    });
    const migrations = new CustomResource(this, 'Migrations', {
      serviceToken: provider.serviceToken,
      properties: { checksum: migrationsChecksum() },
    });
    migrations.node.addDependency(this.proxy);
    migrations.node.addDependency(this.cluster);
  }

  /** What a function needs in its environment to connect (see lambdas/handlers/deps.ts). */
  clientEnvironment(): Record<string, string> {
    return { DATABASE_SECRET_ARN: this.cluster.secret!.secretArn, DATABASE_HOST: this.proxy.endpoint, DATABASE_NAME };
  }

  grantConnect(fn: { role?: import('aws-cdk-lib/aws-iam').IRole } & import('aws-cdk-lib/aws-iam').IGrantable): void {
    this.cluster.secret!.grantRead(fn);
  }
}
