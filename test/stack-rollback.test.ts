// A failed first deploy: the RDS simulator refuses to delete a protected cluster through the real
// @aws-sdk/client-rds, as RDS does, and the CloudFormation deploy simulator rolls back as CloudFormation documents it
// (RetainExceptOnCreate deleted on the rollback of the creating operation, Retain kept, a failed delete ends
// ROLLBACK_FAILED, a ROLLBACK_COMPLETE stack must be deleted before it is created again).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeleteDBClusterCommand,
  DescribeDBClustersCommand,
  ModifyDBClusterCommand,
  RDSClient,
} from '@aws-sdk/client-rds';
import { RdsSim } from '../simulators/rds-sim.ts';
import type { AwsCall, RequestAuthorization, RequestScope } from '../simulators/authorization.ts';
import {
  rdsClusterProvisioner,
  StackDeployments,
  StackOperationError,
  TemplateDependencyError,
  type DeployTemplate,
  type Provisioner,
} from '../simulators/cloudformation-deploy.ts';
import { protectDatabaseHandler } from '../functions/protect-database.ts';
import { fact } from '../aws-facts/facts.ts';

/** An authorizer that allows everything and keeps the calls the server derived. */
function recordingAuthorizer(calls: AwsCall[]): RequestAuthorization {
  const scope: RequestScope = {
    accessKeyId: 'AKIATEST',
    region: 'eu-west-1',
    service: 'rds',
    account: '123456789012',
    partition: 'aws',
  };
  return {
    partition: 'aws',
    check: (_headers, _protocol, derive) => {
      calls.push(...derive(scope));
      return Promise.resolve({ ok: true, principal: 'test' });
    },
  } as Partial<RequestAuthorization> as RequestAuthorization;
}

const calls: AwsCall[] = [];
const rds = new RdsSim({ authorizer: recordingAuthorizer(calls) });
let client: RDSClient;
beforeAll(async () => {
  client = new RDSClient({
    endpoint: await rds.listen(),
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
});
afterAll(async () => {
  client.destroy();
  await rds.close();
});

describe('the RDS simulator, through @aws-sdk/client-rds', () => {
  it('refuses to delete a protected cluster as RDS does; unprotected, deletes it', async () => {
    rds.createCluster('Ariadne-Cluster', { deletionProtection: true });
    const refused = await client.send(new DeleteDBClusterCommand({ DBClusterIdentifier: 'ariadne-cluster' })).then(
      () => null,
      (err: Error & { $metadata?: { httpStatusCode?: number } }) => err,
    );
    expect(refused?.name).toBe('InvalidParameterCombination');
    expect(refused?.message).toBe('Cannot delete protected Cluster, please disable deletion protection and try again.');
    expect(refused?.message).toBe(fact('rds.delete-protected-cluster').value.message);
    expect(refused?.$metadata?.httpStatusCode).toBe(400);
    expect(rds.clusters.has('ariadne-cluster')).toBe(true);
    const modified = await client.send(
      new ModifyDBClusterCommand({ DBClusterIdentifier: 'ariadne-cluster', DeletionProtection: false }),
    );
    expect(modified.DBCluster).toMatchObject({ DBClusterIdentifier: 'ariadne-cluster', DeletionProtection: false });
    await client.send(new DeleteDBClusterCommand({ DBClusterIdentifier: 'ariadne-cluster' }));
    expect(rds.clusters.size).toBe(0);
    await expect(
      client.send(new DescribeDBClustersCommand({ DBClusterIdentifier: 'ariadne-cluster' })),
    ).rejects.toMatchObject({ name: 'DBClusterNotFoundFault' });
    // each authorized as rds:<Action> on the cluster's ARN (resource type "cluster")
    expect(calls.slice(0, 3)).toEqual([
      { action: 'rds:DeleteDBCluster', resource: 'arn:aws:rds:eu-west-1:123456789012:cluster:ariadne-cluster' },
      { action: 'rds:ModifyDBCluster', resource: 'arn:aws:rds:eu-west-1:123456789012:cluster:ariadne-cluster' },
      { action: 'rds:DeleteDBCluster', resource: 'arn:aws:rds:eu-west-1:123456789012:cluster:ariadne-cluster' },
    ]);
  });

  it('the protection handler turns deletion protection on at Create and Update, and leaves it at Delete', async () => {
    const protect = protectDatabaseHandler(client);
    const cluster = rds.createCluster('db-1');
    expect(cluster.deletionProtection).toBe(false); // RDS's default
    const ResourceProperties = { ClusterIdentifier: 'db-1' };
    expect(await protect({ RequestType: 'Create', ResourceProperties })).toEqual({ PhysicalResourceId: 'db-1' });
    expect(rds.clusters.get('db-1')!.deletionProtection).toBe(true);
    rds.clusters.get('db-1')!.deletionProtection = false; // an update of the cluster sent DeletionProtection false
    await protect({ RequestType: 'Update', PhysicalResourceId: 'db-1', ResourceProperties });
    expect(rds.clusters.get('db-1')!.deletionProtection).toBe(true);
    await protect({ RequestType: 'Delete', PhysicalResourceId: 'db-1', ResourceProperties });
    expect(rds.clusters.get('db-1')!.deletionProtection).toBe(true);
    await expect(
      protect({ RequestType: 'Create', ResourceProperties: { ClusterIdentifier: 'nope' } }),
    ).rejects.toMatchObject({
      name: 'DBClusterNotFoundFault',
    });
    rds.clusters.clear();
  });
});

/** A stack like Ariadne's: network, cluster (kept except on create), migrations that may fail, then the protection. */
function stackTemplate(opts: { clusterProtected: boolean; protectionAfter: string[] }): DeployTemplate {
  return {
    Resources: {
      Vpc: { Type: 'AWS::EC2::VPC', DeletionPolicy: 'RetainExceptOnCreate' },
      Subnets: {
        Type: 'AWS::RDS::DBSubnetGroup',
        DeletionPolicy: 'RetainExceptOnCreate',
        Properties: { SubnetIds: [{ 'Fn::Sub': '${Vpc}-a' }] },
      },
      Cluster: {
        Type: 'AWS::RDS::DBCluster',
        DeletionPolicy: 'RetainExceptOnCreate',
        Properties: { DBSubnetGroupName: { Ref: 'Subnets' }, DeletionProtection: opts.clusterProtected },
      },
      FlowLogs: { Type: 'AWS::Logs::LogGroup', DeletionPolicy: 'Retain' },
      Fn: { Type: 'AWS::Lambda::Function', Properties: { Role: { 'Fn::GetAtt': ['Role', 'Arn'] } } },
      Role: { Type: 'AWS::IAM::Role' },
      Migrations: { Type: 'Custom::Migrations', DependsOn: ['Cluster'], Properties: { ServiceToken: { Ref: 'Fn' } } },
      Protection: {
        Type: 'Custom::Protection',
        DependsOn: opts.protectionAfter,
        Properties: { ServiceToken: { 'Fn::GetAtt': 'Fn.Arn' }, ClusterIdentifier: { Ref: 'Cluster' } },
      },
    },
  };
}

/** Custom resources: migrations that fail while `failing`, a protection that protects the cluster in the sim. */
function deployments(sim: RdsSim, state: { failing: boolean }): StackDeployments {
  const custom: Provisioner = {
    create: ({ logicalId }) => {
      if (logicalId === 'Migrations' && state.failing) return Promise.reject(new Error('the migrations failed'));
      if (logicalId === 'Protection') sim.clusters.get('stack-cluster')!.deletionProtection = true;
      return Promise.resolve(`${logicalId}-id`);
    },
    delete: () => Promise.resolve(),
  };
  return new StackDeployments({
    'AWS::RDS::DBCluster': rdsClusterProvisioner(sim, (id) => `stack-${id.toLowerCase()}`),
    'AWS::CloudFormation::CustomResource': custom,
  });
}

const EVERYTHING = ['Vpc', 'Subnets', 'Cluster', 'FlowLogs', 'Fn', 'Role', 'Migrations'];

describe('the CloudFormation deploy simulator', () => {
  it('rolls a failed first deploy back clean when the cluster is created unprotected; then deploys again', async () => {
    const sim = new RdsSim();
    const state = { failing: true };
    const cfn = deployments(sim, state);
    const template = stackTemplate({ clusterProtected: false, protectionAfter: EVERYTHING });
    const failed = await cfn.createStack('Ariadne', template);
    expect(failed.status).toBe('ROLLBACK_COMPLETE');
    expect(failed.events).toContainEqual(
      expect.objectContaining({ logicalId: 'Migrations', status: 'CREATE_FAILED', reason: 'the migrations failed' }),
    );
    // the protection was never reached: it depends on the migrations
    expect(failed.events.some((e) => e.logicalId === 'Protection')).toBe(false);
    expect(failed.events).toContainEqual(expect.objectContaining({ logicalId: 'Cluster', status: 'DELETE_COMPLETE' }));
    expect(sim.clusters.size).toBe(0);
    expect(failed.resources.size).toBe(0);
    // Retain keeps a resource even on the rollback of the operation that made it
    expect([...cfn.account.values()].map((r) => r.type)).toEqual(['AWS::Logs::LogGroup']);
    expect(failed.events).toContainEqual(expect.objectContaining({ logicalId: 'FlowLogs', status: 'DELETE_SKIPPED' }));

    // only a delete operation can be performed on a ROLLBACK_COMPLETE stack
    await expect(cfn.createStack('Ariadne', template)).rejects.toThrow(StackOperationError);
    await expect(cfn.createStack('Ariadne', template)).rejects.toMatchObject({ code: 'AlreadyExistsException' });
    expect((await cfn.deleteStack('Ariadne')).status).toBe('DELETE_COMPLETE');
    expect(cfn.stack('Ariadne')).toBeUndefined();
    state.failing = false;
    cfn.account.clear();
    const deployed = await cfn.createStack('Ariadne', template);
    expect(deployed.status).toBe('CREATE_COMPLETE');
    expect(sim.clusters.get('stack-cluster')!.deletionProtection).toBe(true);
    // the last resource created is the protection
    expect([...deployed.resources.keys()].at(-1)).toBe('Protection');
  });

  it('ends ROLLBACK_FAILED with the cluster and its network left when the cluster is created protected', async () => {
    const sim = new RdsSim();
    const cfn = deployments(sim, { failing: true });
    const failed = await cfn.createStack('Ariadne', stackTemplate({ clusterProtected: true, protectionAfter: [] }));
    expect(failed.status).toBe('ROLLBACK_FAILED');
    expect(failed.events).toContainEqual({
      logicalId: 'Cluster',
      type: 'AWS::RDS::DBCluster',
      status: 'DELETE_FAILED',
      reason:
        'Cannot delete protected Cluster, please disable deletion protection and try again. ' +
        '(Service: Rds, Status Code: 400, InvalidParameterCombination)',
    });
    expect([...sim.clusters.keys()]).toEqual(['stack-cluster']);
    // what the cluster depends on stays with it; what depended on nothing of it went
    expect([...failed.resources.keys()].sort()).toEqual(['Cluster', 'Subnets', 'Vpc']);
    expect(failed.resources.get('Cluster')!.status).toBe('DELETE_FAILED');
    expect(failed.resources.has('Fn')).toBe(false);
  });

  it('creates each resource as soon as it can: a protection after the cluster alone races the migrations', async () => {
    const sim = new RdsSim();
    const cfn = deployments(sim, { failing: true });
    const failed = await cfn.createStack(
      'Ariadne',
      stackTemplate({ clusterProtected: false, protectionAfter: ['Cluster'] }),
    );
    // created beside the migrations, it protected the cluster before they failed: the rollback cannot delete it
    expect(failed.events).toContainEqual(
      expect.objectContaining({ logicalId: 'Protection', status: 'CREATE_COMPLETE' }),
    );
    expect(failed.status).toBe('ROLLBACK_FAILED');
    expect(sim.clusters.get('stack-cluster')!.deletionProtection).toBe(true);
  });

  it('keeps RetainExceptOnCreate and Retain resources when a stack is deleted, and deletes the rest', async () => {
    const sim = new RdsSim();
    const cfn = deployments(sim, { failing: false });
    await cfn.createStack('Ariadne', stackTemplate({ clusterProtected: false, protectionAfter: EVERYTHING }));
    const deleted = await cfn.deleteStack('Ariadne');
    expect(deleted.status).toBe('DELETE_COMPLETE');
    expect([...cfn.account.values()].map((r) => r.physicalId).sort()).toEqual([
      'Ariadne-FlowLogs',
      'Ariadne-Subnets',
      'Ariadne-Vpc',
      'stack-cluster',
    ]);
    expect(sim.clusters.get('stack-cluster')!.deletionProtection).toBe(true);
    await expect(cfn.deleteStack('Ariadne')).rejects.toMatchObject({ code: 'ValidationError' });
  });

  it('refuses a template that refers to a missing resource or whose dependencies form a circle', async () => {
    const cfn = new StackDeployments();
    await expect(
      cfn.createStack('A', { Resources: { X: { Type: 'T', Properties: { P: { Ref: 'Y' } } } } }),
    ).rejects.toThrow(/Unresolved resource dependencies \[Y\]/);
    const circle: DeployTemplate = {
      Resources: { X: { Type: 'T', DependsOn: 'Y' }, Y: { Type: 'T', Properties: { P: { 'Fn::Sub': '${X.Arn}' } } } },
    };
    await expect(cfn.createStack('B', circle)).rejects.toThrow(TemplateDependencyError);
    // parameters, pseudo parameters and ${!Literal} are no dependencies
    const fine: DeployTemplate = {
      Parameters: { P: {} },
      Resources: {
        X: { Type: 'T', Properties: { A: { Ref: 'P' }, B: { Ref: 'AWS::Region' }, C: { 'Fn::Sub': '${!Y}' } } },
      },
    };
    expect((await cfn.createStack('C', fine)).status).toBe('CREATE_COMPLETE');
  });
});
