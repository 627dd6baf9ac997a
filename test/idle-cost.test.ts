// The idle-cost bench's pricing (bench/idle-cost.ts) on hand-made templates,
// to stay fast. The real stack's figure is checked in cdk-stack.test.ts, on the
// template that suite synthesizes anyway.
import { describe, expect, it } from 'vitest';
import { BEFORE_ISSUE_16, idleCost } from '../bench/idle-cost.ts';
import { HOURS_PER_MONTH, PRICES } from '../bench/prices.ts';
import type { StackTemplate } from '../state-machine/definition.ts';

/** A NAT gateway, and an RDS Proxy in front of one Serverless v2 writer at the given MinCapacity. */
function databaseStack(minCapacity: number): StackTemplate {
  return {
    Resources: {
      Nat0A1B2C3D: { Type: 'AWS::EC2::NatGateway', Properties: {} },
      Cluster: {
        Type: 'AWS::RDS::DBCluster',
        Properties: { Engine: 'aurora-postgresql', ServerlessV2ScalingConfiguration: { MinCapacity: minCapacity } },
      },
      Writer: {
        Type: 'AWS::RDS::DBInstance',
        Properties: { DBClusterIdentifier: { Ref: 'Cluster' }, DBInstanceClass: 'db.serverless' },
      },
      Proxy: { Type: 'AWS::RDS::DBProxy', Properties: { EngineFamily: 'POSTGRESQL' } },
      ProxyTargets: {
        Type: 'AWS::RDS::DBProxyTargetGroup',
        Properties: { DBProxyName: { Ref: 'Proxy' }, DBClusterIdentifiers: [{ Ref: 'Cluster' }] },
      },
    },
  };
}

const monthly = (cost: ReturnType<typeof idleCost>) =>
  Object.fromEntries(cost.rows.map((r) => [r.resource, r.monthly]));

describe('idle cost of a template', () => {
  it('prices a NAT gateway, an RDS Proxy (8 ACU minimum) and a Serverless v2 writer at 0.5 ACU', () => {
    const cost = idleCost(databaseStack(0.5));
    const rows = monthly(cost);
    expect(rows.Nat).toBeCloseTo(32.85, 2); // $0.045 x 730 h; the hash suffix is dropped from the name
    expect(rows.Proxy).toBeCloseTo(87.6, 2); // 8 ACU (the minimum, above 0.5) x $0.015 x 730 h
    expect(rows.Writer).toBeCloseTo(43.8, 2); // 0.5 ACU x $0.12 x 730 h
    expect(rows.Cluster).toBeCloseTo(0.1, 2); // 1 GB of storage, assumed
    expect(cost.total).toBeCloseTo(32.85 + 87.6 + 43.8 + 0.1, 2);
    expect(cost.free).toEqual([
      { type: 'AWS::RDS::DBProxyTargetGroup', count: 1, reason: expect.stringContaining('proxy') as unknown },
    ]);
  });

  it('MinCapacity 0 (auto-pause) bills no compute; the proxy still bills its 8 ACU minimum', () => {
    const cost = idleCost(databaseStack(0));
    const rows = monthly(cost);
    expect(rows.Writer).toBe(0);
    expect(cost.rows.find((r) => r.resource === 'Writer')?.note).toMatch(/RDS Proxy.*keep it from pausing/);
    expect(rows.Proxy).toBeCloseTo(8 * PRICES.rdsProxyAcuHour * HOURS_PER_MONTH, 2);
  });

  it('a proxy above its minimum bills the ACUs of every Serverless v2 instance', () => {
    const template = databaseStack(6);
    template.Resources.Reader = { ...template.Resources.Writer };
    expect(monthly(idleCost(template)).Proxy).toBeCloseTo(12 * PRICES.rdsProxyAcuHour * HOURS_PER_MONTH, 2);
  });

  it('an unknown type is reported unpriced and left out of the total; free types are listed, not counted', () => {
    const cost = idleCost({
      Resources: {
        Cache: { Type: 'AWS::ElastiCache::CacheCluster', Properties: {} },
        Role: { Type: 'AWS::IAM::Role' },
        OtherRole: { Type: 'AWS::IAM::Role' },
        Machine: { Type: 'AWS::StepFunctions::StateMachine' },
        Secret: { Type: 'AWS::SecretsManager::Secret' },
      },
    });
    expect(cost.rows.find((r) => r.resource === 'Cache')).toMatchObject({
      type: 'AWS::ElastiCache::CacheCluster',
      monthly: null,
    });
    expect(cost.total).toBeCloseTo(PRICES.secretMonth, 6);
    expect(cost.free.map((f) => [f.type, f.count])).toEqual([
      ['AWS::IAM::Role', 2],
      ['AWS::StepFunctions::StateMachine', 1],
    ]);
    expect(cost.rows.map((r) => r.resource).sort()).toEqual(['Cache', 'Secret']);
  });

  it('interface endpoints bill per AZ; gateway endpoints are free', () => {
    const rows = monthly(
      idleCost({
        Resources: {
          Interface: {
            Type: 'AWS::EC2::VPCEndpoint',
            Properties: { VpcEndpointType: 'Interface', SubnetIds: ['a', 'b'] },
          },
          Gateway: { Type: 'AWS::EC2::VPCEndpoint', Properties: {} },
        },
      }),
    );
    expect(rows.Interface).toBeCloseTo(2 * 0.01 * 730, 2);
    expect(rows.Gateway).toBe(0);
  });

  it('the serverless design: a writer at MinCapacity 0, no proxy, bills no compute; storage and secret remain', () => {
    const cost = idleCost({
      Resources: {
        Cluster: {
          Type: 'AWS::RDS::DBCluster',
          Properties: { ServerlessV2ScalingConfiguration: { MinCapacity: 0, SecondsUntilAutoPause: 300 } },
        },
        Writer: {
          Type: 'AWS::RDS::DBInstance',
          Properties: { DBClusterIdentifier: { Ref: 'Cluster' }, DBInstanceClass: 'db.serverless' },
        },
        Secret: { Type: 'AWS::SecretsManager::Secret' },
      },
    });
    const rows = monthly(cost);
    expect(rows.Writer).toBe(0);
    expect(cost.rows.find((r) => r.resource === 'Writer')?.note).not.toMatch(/Proxy/);
    expect(rows.Cluster).toBeCloseTo(0.1, 6); // 1 GB at $0.10/GB-month
    expect(rows.Secret).toBeCloseTo(0.4, 6);
    expect(cost.total).toBeCloseTo(0.5, 6);
  });

  it('the reference rows of the stack before serverless price as the bench prices it, $171.65 in all', () => {
    const before = Object.fromEntries(BEFORE_ISSUE_16.map((r) => [r.resource, r.monthly]));
    const old = monthly(idleCost(databaseStack(0.5)));
    expect(before['RDS Proxy (8 ACU minimum)']).toBeCloseTo(old.Proxy!, 6);
    expect(before['Serverless v2 writer at 0.5 ACU']).toBeCloseTo(old.Writer!, 6);
    expect(before['NAT gateway']).toBeCloseTo(old.Nat!, 6);
    expect(BEFORE_ISSUE_16.reduce((n, r) => n + r.monthly, 0)).toBeCloseTo(171.65, 2);
  });
});
