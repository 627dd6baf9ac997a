// A local server speaking RDS's control plane (query protocol, Version 2014-10-31) for the DB cluster calls the stack
// makes, so functions/protect-database.ts runs through the real @aws-sdk/client-rds: form-encoded POSTs signed with
// SigV4, XML replies and errors; DeleteDBCluster of a protected cluster is refused
// (aws-facts: rds.delete-protected-cluster). Clusters are created in-process for the deploy simulator
// (cloudformation-deploy.ts); with an authorizer, each request is authorized as rds:<Action> on the cluster's ARN.
import { randomUUID } from 'node:crypto';
import { queryErrorReply, type AwsCall, type RequestAuthorization, type RequestScope } from './authorization.ts';
import { AwsQueryServer, type QueryReply } from './aws-query-server.ts';
import { fact } from '../aws-facts/facts.ts';

const PROTECTED = fact('rds.delete-protected-cluster').value;
const PROTECTED_BY_DEFAULT = fact('rds.deletion-protection-default').value;
const NAMESPACE = 'http://rds.amazonaws.com/doc/2014-10-31/';

export interface SimCluster {
  /** Lower case, as RDS stores it ("This parameter is stored as a lowercase string", CreateDBCluster). */
  identifier: string;
  arn: string;
  deletionProtection: boolean;
  status: 'available';
}

/** An RDS API error: its code (the SDK's error name) and HTTP status, with RDS's message. */
export class RdsApiError extends Error {
  override readonly name = 'RdsApiError';
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const xmlEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const clusterXml = (c: SimCluster) =>
  `<DBCluster><DBClusterIdentifier>${xmlEscape(c.identifier)}</DBClusterIdentifier>` +
  `<DBClusterArn>${xmlEscape(c.arn)}</DBClusterArn><Status>${c.status}</Status>` +
  `<DeletionProtection>${c.deletionProtection}</DeletionProtection></DBCluster>`;

/** The operations served, each authorized as rds:<Action>. */
const ACTIONS = new Set(['DescribeDBClusters', 'ModifyDBCluster', 'DeleteDBCluster']);

export class RdsSim extends AwsQueryServer {
  readonly clusters = new Map<string, SimCluster>();

  constructor(private readonly opts: { authorizer?: RequestAuthorization; region?: string; account?: string } = {}) {
    super(opts.authorizer);
  }

  private arn(identifier: string, scope?: Pick<RequestScope, 'partition' | 'region' | 'account'>): string {
    const partition = scope?.partition ?? this.opts.authorizer?.partition ?? 'aws';
    const region = scope?.region ?? this.opts.region ?? 'eu-west-1';
    const account = scope?.account ?? this.opts.account ?? '123456789012';
    return `arn:${partition}:rds:${region}:${account}:cluster:${identifier.toLowerCase()}`;
  }

  /** A new cluster, available at once (CloudFormation waits for it; no caller here sees it being created). */
  createCluster(identifier: string, opts: { deletionProtection?: boolean } = {}): SimCluster {
    const id = identifier.toLowerCase();
    if (this.clusters.has(id)) throw new RdsApiError('DBClusterAlreadyExistsFault', 'DB Cluster already exists');
    const cluster: SimCluster = {
      identifier: id,
      arn: this.arn(id),
      deletionProtection: opts.deletionProtection ?? PROTECTED_BY_DEFAULT,
      status: 'available',
    };
    this.clusters.set(id, cluster);
    return cluster;
  }

  /** DeleteDBCluster's rule: a protected cluster stays, and the caller gets RDS's refusal. */
  deleteCluster(identifier: string): void {
    const cluster = this.cluster(identifier);
    if (cluster.deletionProtection) throw new RdsApiError(PROTECTED.code, PROTECTED.message);
    this.clusters.delete(cluster.identifier);
  }

  private cluster(identifier: string | undefined): SimCluster {
    const cluster = identifier === undefined ? undefined : this.clusters.get(identifier.toLowerCase());
    if (!cluster) throw new RdsApiError('DBClusterNotFoundFault', `DBCluster ${identifier ?? ''} not found.`, 404);
    return cluster;
  }

  protected calls(params: Record<string, string>, scope: RequestScope): AwsCall[] {
    if (!ACTIONS.has(params.Action)) return [];
    const id = params.DBClusterIdentifier;
    return [{ action: `rds:${params.Action}`, resource: id ? this.arn(id, scope) : this.arn('*', scope) }];
  }

  protected answer(params: Record<string, string>): QueryReply {
    const result = (body: string) => ({
      status: 200,
      body:
        `<${params.Action}Response xmlns="${NAMESPACE}"><${params.Action}Result>${body}</${params.Action}Result>` +
        `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></${params.Action}Response>`,
    });
    try {
      switch (params.Action) {
        case 'DescribeDBClusters': {
          const found = params.DBClusterIdentifier
            ? [this.cluster(params.DBClusterIdentifier)]
            : [...this.clusters.values()];
          return result(`<DBClusters>${found.map(clusterXml).join('')}</DBClusters>`);
        }
        case 'ModifyDBCluster': {
          const cluster = this.cluster(params.DBClusterIdentifier);
          if (params.DeletionProtection !== undefined)
            cluster.deletionProtection = params.DeletionProtection === 'true';
          return result(clusterXml(cluster));
        }
        case 'DeleteDBCluster': {
          const cluster = this.cluster(params.DBClusterIdentifier);
          this.deleteCluster(cluster.identifier);
          return result(clusterXml({ ...cluster }));
        }
        default:
          throw new RdsApiError('InvalidAction', `Could not find operation ${params.Action}`);
      }
    } catch (err) {
      if (!(err instanceof RdsApiError)) throw err;
      const reply = queryErrorReply(err.status, err.code, err.message);
      return { status: reply.status, body: reply.body.replace(/xmlns="[^"]*"/, `xmlns="${NAMESPACE}"`) };
    }
  }
}
