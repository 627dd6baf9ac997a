// The experiment database in AWS: Aurora PostgreSQL Serverless v2 scaling to 0 ACUs when idle, reached only through
// the RDS Data API (HTTPS, IAM-authorized): no Lambda in a VPC, no RDS Proxy, no NAT gateway; isolated subnets only.
// Credentials live in Secrets Manager; migrations run at every deploy, polled until a paused cluster resumes. The
// cluster is created unprotected and protected last, so a failed first deploy rolls back clean (protectWhenComplete).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CfnResource, CustomResource, Duration, Lazy, RemovalPolicy, Stack, Tags } from 'aws-cdk-lib';
import { SubnetType, type IVpc } from 'aws-cdk-lib/aws-ec2';
import { Grant, PolicyStatement, type IGrantable } from 'aws-cdk-lib/aws-iam';
import {
  AuroraPostgresEngineVersion,
  ClusterInstance,
  Credentials,
  DatabaseCluster,
  DatabaseClusterEngine,
  DatabaseSecret,
} from 'aws-cdk-lib/aws-rds';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct, type IConstruct } from 'constructs';
import { handlerFunction } from './handler-functions.ts';
import { LOG_RETENTION } from './observability.ts';
import { RESULTS_DATABASE_TAG, RESULTS_READER_TAG } from './resource-tags.ts';

export const DATABASE_NAME = 'ariadne';
/** The researchers' read-only role (core/store/reader-role.ts), whose secret the `--aws` results commands use. */
const READER_USERNAME = 'ariadne_reader';
const MIGRATIONS = fileURLToPath(new URL('../migrations/', import.meta.url));

/**
 * What the Data API may do, per "Authorizing access to the Amazon RDS Data API" (its minimum policy):
 * these five on the cluster ARN, and secretsmanager:GetSecretValue on the secret. CDK's
 * cluster.grantDataApiAccess() grants the same five but secret.grantRead() beside them, which adds
 * secretsmanager:DescribeSecret: more than the Data API needs, so the grant is made here.
 */
export const DATA_API_ACTIONS = [
  'rds-data:BatchExecuteStatement',
  'rds-data:BeginTransaction',
  'rds-data:CommitTransaction',
  'rds-data:ExecuteStatement',
  'rds-data:RollbackTransaction',
];

/** Idle time before the writer pauses (0 ACUs, no compute billed); AWS allows 5 minutes to 24 hours. */
export const DEFAULT_AUTO_PAUSE = Duration.minutes(5);
/**
 * Upper bound of the writer's capacity. 4 ACUs (about 8 GiB) is plenty for the experiments' short
 * inserts and reads, even with a sweep of 32 experiments at once, and caps a runaway query at
 * 4 x $0.12 = $0.48/hour.
 */
const DEFAULT_MAX_CAPACITY = 4;

/**
 * How often the migrations' isComplete is polled while the cluster resumes. Aurora's auto-pause page: a resume takes
 * "typically approximately 15 seconds ... If the instance is paused for longer than 24 hours, the resume time might be
 * longer" (AuroraUserGuide/aurora-serverless-v2-auto-pause.html). Each poll tries the database once
 * (functions/migrate-database.ts); the wait between tries is this interval, not time inside a function.
 */
export const MIGRATION_POLL_INTERVAL = Duration.seconds(10);

/**
 * How long the deploy waits for the database before it fails: 120 typical resumes. CDK's Provider: "The maximum
 * timeout is 1 hour" (ProviderProps.totalTimeout); CloudFormation waits for a custom resource's answer up to its
 * ServiceTimeout, "The default value is 3600 seconds (1 hour)" (AWS::CloudFormation::CustomResource). A database
 * still unavailable after half an hour is an outage to report, not a resume to wait out.
 */
export const MIGRATION_TOTAL_TIMEOUT = Duration.minutes(30);

/** A hash of a resource as the template renders it (type, properties, policies), references left as references. */
function templateHash(resource: CfnResource): string {
  // _toCloudFormation is CDK's rendering of a resource into the template; not in its typings (internal)
  const render = (resource as unknown as { _toCloudFormation?: () => unknown })._toCloudFormation;
  if (typeof render !== 'function') throw new TemplateHashError(`${resource.node.path} has no template rendering`);
  const rendered: unknown = Stack.of(resource).resolve(render.call(resource));
  return createHash('sha256').update(JSON.stringify(rendered)).digest('hex');
}

/** CDK no longer renders a resource the way templateHash reads it. */
class TemplateHashError extends Error {
  override readonly name = 'TemplateHashError';
}

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
  /** Isolated subnets are enough: only the Data API (an AWS service) talks to the cluster. */
  vpc: IVpc;
  /** Default DEFAULT_AUTO_PAUSE (5 minutes); 5 minutes to 24 hours. */
  autoPause?: Duration;
  /** Default DEFAULT_MAX_CAPACITY ACUs. */
  maxCapacity?: number;
  /**
   * false (the default): `cdk destroy` keeps the cluster, its credentials secret and the network it
   * lives in, so published numbers stay readable. true: everything goes, without a final snapshot.
   */
  removeData?: boolean;
}

export class ExperimentDatabase extends Construct {
  readonly cluster: DatabaseCluster;
  /** The master user's: the functions', which write. */
  readonly secret: ISecret;
  /** The read-only role's: researchers', whose policy names this one only. */
  readonly readerSecret: DatabaseSecret;
  /** The custom resource that turns deletion protection on (not with removeData); protectWhenComplete orders it. */
  readonly deletionProtection: CustomResource | null;

  constructor(scope: Construct, id: string, props: ExperimentDatabaseProps) {
    super(scope, id);
    const removeData = props.removeData ?? false;
    this.cluster = this.serverlessCluster(props, removeData);
    this.secret = this.cluster.secret!;
    // The cluster and its secret carry the stack's name under one key of ours, so a researcher policy written before
    // the deploy (ariadne policy researcher --template), when CloudFormation has not yet generated their names, can
    // still allow these two and no other: rds-data's and GetSecretValue's actions take aws:ResourceTag/${TagKey}
    // (Service Authorization Reference). CloudFormation's own aws:cloudformation:* tags would not do: their
    // "propagation ... varies by resource type" (CloudFormation User Guide, resource tagging).
    Tags.of(this.cluster).add(RESULTS_DATABASE_TAG, Stack.of(this).stackName, {
      includeResourceTypes: ['AWS::RDS::DBCluster', 'AWS::SecretsManager::Secret'],
    });
    this.readerSecret = this.readerRoleSecret();
    // No rotation: the rotation Lambda must run in the cluster's VPC to change the password, and with
    // isolated subnets it reaches Secrets Manager only through an interface endpoint (~$7.30/month per
    // AZ), many times the stack's idle budget. The Data API reads the secret on every call.
    if (!removeData) this.keepOnDestroy(props.vpc, this.readerSecret);
    this.applyMigrations();
    this.deletionProtection = removeData ? null : this.protection();
  }

  /** Aurora Serverless v2 PostgreSQL with the Data API, pausing at 0 ACUs. */
  private serverlessCluster(props: ExperimentDatabaseProps, removeData: boolean): DatabaseCluster {
    return new DatabaseCluster(this, 'Cluster', {
      // 17.5: Data API needs Aurora PostgreSQL 17.4 or higher, a minimum of 0 ACUs needs 16.3 or higher.
      engine: DatabaseClusterEngine.auroraPostgres({ version: AuroraPostgresEngineVersion.VER_17_5 }),
      credentials: Credentials.fromGeneratedSecret('ariadne'),
      defaultDatabaseName: DATABASE_NAME,
      writer: ClusterInstance.serverlessV2('Writer'),
      serverlessV2MinCapacity: 0,
      serverlessV2AutoPauseDuration: props.autoPause ?? DEFAULT_AUTO_PAUSE,
      serverlessV2MaxCapacity: props.maxCapacity ?? DEFAULT_MAX_CAPACITY,
      enableDataApi: true,
      vpc: props.vpc,
      vpcSubnets: { subnetType: SubnetType.PRIVATE_ISOLATED },
      storageEncrypted: true,
      // Protected only once it exists (protectWhenComplete): RDS refuses to delete a protected cluster, so a cluster
      // created protected made a failed first deploy's rollback fail and leave it, its network and secret behind.
      deletionProtection: false,
      iamAuthentication: true,
      backup: { retention: Duration.days(7) },
      cloudwatchLogsExports: ['postgresql'],
      // Published numbers come from this database: kept by default, and then kept whole (see keepOnDestroy).
      removalPolicy: removeData ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
  }

  /** The read-only role's secret, tagged for the researcher policy. */
  private readerRoleSecret(): DatabaseSecret {
    // Researchers read as a role that may SELECT and nothing else; its password is generated here (the same rules
    // as the master's: no quote, backslash or @) and set in Postgres by the migrations after every deploy.
    const readerSecret = new DatabaseSecret(this, 'ReaderSecret', { username: READER_USERNAME, dbname: DATABASE_NAME });
    Tags.of(readerSecret).add(RESULTS_READER_TAG, Stack.of(this).stackName);
    return readerSecret;
  }

  /** The migrations, applied after every deploy by a custom resource (and the reader's password set). */
  private applyMigrations(): void {
    // onEvent only answers (PhysicalResourceId); isComplete, polled by CDK's Provider framework from right after it,
    // applies the migrations and answers IsComplete false while the database is paused or resuming, so a slow resume
    // is waited out between polls (queryInterval, up to totalTimeout) instead of failing one function's retry budget.
    const start = handlerFunction(this, 'MigrateStartFn', {
      file: 'migrate-database.ts',
      exportName: 'handler',
      timeoutSeconds: 10,
    });
    // 14 minutes: a DDL statement past the Data API's 45 s runs on (continueAfterTimeout) and the poll waits for it in
    // its transaction; a minute under the 15 of CDK's framework function that invokes this one and waits for it.
    const migrate = handlerFunction(this, 'MigrateFn', {
      file: 'migrate-database.ts',
      exportName: 'isComplete',
      timeoutSeconds: 840,
      environment: { ...this.clientEnvironment(), DATABASE_READER_SECRET_ARN: this.readerSecret.secretArn },
      copyMigrations: true,
    });
    this.grantDataApi(migrate);
    migrate.addToRolePolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [this.readerSecret.secretArn] }),
    );
    const provider = new Provider(this, 'MigrationsProvider', {
      onEventHandler: start,
      isCompleteHandler: migrate,
      queryInterval: MIGRATION_POLL_INTERVAL,
      totalTimeout: MIGRATION_TOTAL_TIMEOUT,
      logGroup: new LogGroup(this, 'MigrationsProviderLogs', {
        retention: LOG_RETENTION,
        removalPolicy: RemovalPolicy.DESTROY,
      }),
    });
    const migrations = new CustomResource(this, 'Migrations', {
      serviceToken: provider.serviceToken,
      properties: { checksum: migrationsChecksum() },
    });
    // The cluster and its writer instance (a child of the cluster construct): the Data API needs both.
    migrations.node.addDependency(this.cluster);
  }

  /**
   * rds:ModifyDBCluster with DeletionProtection true, from our own function (functions/protect-database.ts),
   * granted that action on this cluster alone (Service Authorization Reference for Amazon RDS: ModifyDBCluster's
   * required resource type is "cluster"). Its properties carry a hash of the cluster's template: CloudFormation's
   * update of the cluster sends the template's DeletionProtection (false) with every modification (the RDS resource
   * provider's modifyDbClusterRequest, github.com/aws-cloudformation/aws-cloudformation-resource-providers-rds), so
   * any change to the cluster updates this resource too, which protects it again.
   */
  private protection(): CustomResource {
    const scope = new Construct(this, 'DeletionProtection');
    const fn = handlerFunction(scope, 'ProtectFn', {
      file: 'protect-database.ts',
      exportName: 'handler',
      timeoutSeconds: 60,
    });
    fn.addToRolePolicy(new PolicyStatement({ actions: ['rds:ModifyDBCluster'], resources: [this.cluster.clusterArn] }));
    const provider = new Provider(scope, 'Provider', {
      onEventHandler: fn,
      logGroup: new LogGroup(scope, 'ProviderLogs', { retention: LOG_RETENTION, removalPolicy: RemovalPolicy.DESTROY }),
    });
    const cluster = this.cluster.node.defaultChild as CfnResource;
    return new CustomResource(scope, 'Resource', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::DeletionProtection',
      properties: {
        ClusterIdentifier: this.cluster.clusterIdentifier,
        ClusterTemplateHash: Lazy.string({ produce: () => templateHash(cluster) }),
      },
    });
  }

  /**
   * Makes the protection the stack's last resource: it depends on every other one, so nothing can fail after the
   * cluster is protected, and a failed first deploy's rollback finds it unprotected (and deletes it, with its network).
   * Call once the stack holds all its resources.
   */
  protectWhenComplete(stack: Stack): void {
    const protection = this.deletionProtection?.node.defaultChild;
    if (!CfnResource.isCfnResource(protection)) return;
    for (const c of stack.node.findAll())
      if (CfnResource.isCfnResource(c) && c !== protection) protection.node.addDependency(c);
  }

  /**
   * A retained cluster keeps its network interfaces in the VPC's subnets and its security group:
   * deleting those would fail the stack's deletion, and the secret is the only way in. Keep them all.
   */
  private keepOnDestroy(vpc: IVpc, readerSecret: IConstruct): void {
    const keep = (scope: IConstruct) => {
      for (const c of scope.node.findAll())
        if (CfnResource.isCfnResource(c)) c.applyRemovalPolicy(RemovalPolicy.RETAIN);
    };
    // Its children: the writer, subnet group, security group, the generated secret and its attachment.
    keep(this.cluster);
    keep(vpc);
    keep(readerSecret);
  }

  /** The Data API's coordinates: the contract of functions/deps.ts. */
  clientEnvironment(): Record<string, string> {
    return {
      DATABASE_CLUSTER_ARN: this.cluster.clusterArn,
      DATABASE_SECRET_ARN: this.secret.secretArn,
      DATABASE_NAME,
    };
  }

  /** Exactly what the Data API needs: its five actions on this cluster, the secret's value. */
  grantDataApi(grantee: IGrantable): void {
    Grant.addToPrincipal({ grantee, actions: DATA_API_ACTIONS, resourceArns: [this.cluster.clusterArn] });
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [this.secret.secretArn] }),
    );
  }
}
