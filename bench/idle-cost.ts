// What the stack costs per month while nobody runs an experiment, read from
// the synthesized CloudFormation template (so a changed stack changes the
// figure) and priced at us-east-1 list prices (bench/prices.ts). Every
// resource type is accounted for: priced per resource, free when idle (with
// the reason), or reported as unpriced. Goal: under $1.50/month idle (IDLE_GOAL says why not $1).
import { fileURLToPath } from 'node:url';
import { stackTemplate, type StackTemplate } from '../state-machine/definition.ts';
import { ASSUMPTIONS, HOURS_PER_MONTH as H, PRICES as P } from './prices.ts';
import { fmt } from './support.ts';
import { customMetricCount } from '../core/telemetry/metrics.ts';

/**
 * $/month. It was $1; the researchers' read-only role needs a secret of its own ($0.40: the Data API connects
 * only with a Secrets Manager secret), the price of researchers who cannot write, and the goal moved by that.
 */
export const IDLE_GOAL = 1.5;

/**
 * The stack before it was made serverless (commit 0a7d2a8: a NAT gateway, RDS Proxy, Aurora Serverless v2 at a 0.5 ACU
 * minimum, Lambdas in the VPC), resource by resource, at today's prices: printed beside the synthesized
 * stack's total for reference. Its template is gone, so its rows are kept here.
 */
export const BEFORE_ISSUE_16: { resource: string; monthly: number }[] = [
  { resource: 'RDS Proxy (8 ACU minimum)', monthly: P.rdsProxyMinimumAcus * P.rdsProxyAcuHour * H },
  { resource: 'Serverless v2 writer at 0.5 ACU', monthly: 0.5 * P.auroraServerlessV2AcuHour * H },
  { resource: 'NAT gateway', monthly: P.natGatewayHour * H },
  { resource: "the NAT gateway's public IPv4 address", monthly: P.publicIpv4Hour * H },
  { resource: 'dashboard', monthly: P.dashboardMonth },
  { resource: 'database secret', monthly: P.secretMonth },
  { resource: 'Aurora storage', monthly: ASSUMPTIONS.auroraStorageGb * P.auroraStorageGbMonth },
  { resource: '2 alarms', monthly: 2 * P.alarmMonth },
  { resource: '16 log groups', monthly: 16 * ASSUMPTIONS.logGroupStoredGb * P.logsStorageGbMonth },
];

/** Types that cost nothing while no experiment runs, and why. */
const FREE: Record<string, string> = {
  'AWS::IAM::Role': 'IAM is free',
  'AWS::IAM::Policy': 'IAM is free',
  'AWS::Lambda::Function': 'billed per request and GB-second: nothing when not invoked',
  'AWS::Lambda::Permission': 'no charge',
  'AWS::StepFunctions::StateMachine':
    'billed per state transition (Standard) or per request and GB-second (Express): nothing when no execution runs',
  'AWS::Events::Rule': 'no charge per rule; events from AWS services are free',
  'AWS::SQS::Queue': 'billed per request (first 1M a month free): an idle queue without pollers makes none',
  'AWS::SQS::QueuePolicy': 'no charge',
  'AWS::SSM::Parameter': 'standard parameters are free',
  'AWS::SecretsManager::ResourcePolicy': 'no charge (the secret is priced)',
  'AWS::SecretsManager::SecretTargetAttachment': 'no charge (the secret is priced)',
  'AWS::SecretsManager::RotationSchedule': 'one rotation Lambda run and a few API calls a month: under a cent',
  'AWS::Serverless::Application': 'the rotation function (a nested stack of a Lambda and its role): free when idle',
  'AWS::CloudFormation::CustomResource':
    'a few Lambda runs and waiter state transitions per deploy (more while a paused database resumes)',
  'Custom::DeletionProtection': 'one Lambda run per deploy that creates or changes the cluster',
  'AWS::RDS::DBSubnetGroup': 'no charge',
  'AWS::RDS::DBProxyTargetGroup': 'part of the proxy, priced there',
  'AWS::EC2::VPC': 'no charge',
  'AWS::EC2::Subnet': 'no charge',
  'AWS::EC2::RouteTable': 'no charge',
  'AWS::EC2::Route': 'no charge',
  'AWS::EC2::SubnetRouteTableAssociation': 'no charge',
  'AWS::EC2::InternetGateway': 'no charge (data transfer out is usage)',
  'AWS::EC2::VPCGatewayAttachment': 'no charge',
  'AWS::EC2::SecurityGroup': 'no charge',
  'AWS::EC2::SecurityGroupIngress': 'no charge',
  'AWS::EC2::SecurityGroupEgress': 'no charge',
  'AWS::EC2::FlowLog':
    'billed per GB of flow records delivered ($0.50/GB to CloudWatch Logs): usage, near none when idle',
  'AWS::CDK::Metadata': 'no charge',
  'AWS::S3::Bucket':
    'billed per GB-month stored: sweep run lists and Map results, a few MB each, expired a year and 15 days after ' +
    'they are written (the longest sweep and its redrive window; a 10,000-run list costs under a cent in that time)',
  'AWS::S3::BucketPolicy': 'no charge',
};

export interface IdleRow {
  /** Logical id without CDK's hash suffix. */
  resource: string;
  type: string;
  /** $/month; null when the bench cannot price it (then it is listed as unpriced, not summed). */
  monthly: number | null;
  note: string;
}

export interface IdleCost {
  rows: IdleRow[];
  free: { type: string; count: number; reason: string }[];
  total: number;
}

type Resources = StackTemplate['Resources'];
type Props = Record<string, unknown>;

const refTo = (value: unknown): string | undefined => (value as { Ref?: string } | undefined)?.Ref;

/** Serverless v2 capacity a cluster keeps when idle: MinCapacity per db.serverless instance. */
function idleAcus(resources: Resources, clusterId: string): { minCapacity: number; instances: number } | null {
  const scaling = resources[clusterId]?.Properties?.ServerlessV2ScalingConfiguration as
    { MinCapacity?: number } | undefined;
  if (!scaling) return null;
  const instances = Object.values(resources).filter(
    (r) =>
      r.Type === 'AWS::RDS::DBInstance' &&
      refTo(r.Properties?.DBClusterIdentifier) === clusterId &&
      r.Properties?.DBInstanceClass === 'db.serverless',
  ).length;
  return { minCapacity: Number(scaling.MinCapacity ?? 0), instances };
}

function priceProxy(resources: Resources, proxyId: string, props: Props): Pick<IdleRow, 'monthly' | 'note'> {
  const targets = Object.values(resources).filter(
    (r) => r.Type === 'AWS::RDS::DBProxyTargetGroup' && refTo(r.Properties?.DBProxyName) === proxyId,
  );
  const clusterId = targets
    .flatMap((t) => (t.Properties?.DBClusterIdentifiers as unknown[] | undefined) ?? [])
    .map(refTo)
    .find((id) => id !== undefined);
  const acus = clusterId ? idleAcus(resources, clusterId) : null;
  const engine = typeof props.EngineFamily === 'string' ? props.EngineFamily : '?';
  // A provisioned target is billed per vCPU of its instances: not a case this stack has, so not guessed at.
  if (!acus) return { monthly: null, note: `${engine} proxy whose target is not Aurora Serverless v2` };
  const billed = Math.max(P.rdsProxyMinimumAcus, acus.minCapacity * acus.instances);
  return {
    monthly: billed * P.rdsProxyAcuHour * H,
    note:
      `${engine} -> Aurora Serverless v2: ${billed} ACU billed ` +
      `(minimum ${P.rdsProxyMinimumAcus}) x $${P.rdsProxyAcuHour}/ACU-h`,
  };
}

function priceInstance(resources: Resources, props: Props): Pick<IdleRow, 'monthly' | 'note'> {
  const clusterId = refTo(props.DBClusterIdentifier);
  const acus = props.DBInstanceClass === 'db.serverless' && clusterId ? idleAcus(resources, clusterId) : null;
  if (!acus) return { monthly: null, note: `instance class ${String(props.DBInstanceClass)}` };
  // Auto-pause needs the instance to have no connections; RDS Proxy keeps some open, so say so beside the $0.
  const proxied = Object.values(resources).some(
    (r) =>
      r.Type === 'AWS::RDS::DBProxyTargetGroup' &&
      ((r.Properties?.DBClusterIdentifiers as unknown[] | undefined) ?? []).some((c) => refTo(c) === clusterId),
  );
  return {
    monthly: acus.minCapacity * P.auroraServerlessV2AcuHour * H,
    note:
      acus.minCapacity === 0
        ? 'Serverless v2 at MinCapacity 0: auto-pauses when idle, no compute billed' +
          (proxied ? " (but an RDS Proxy's open connections keep it from pausing)" : '')
        : `Serverless v2 at MinCapacity ${acus.minCapacity} ACU x $${P.auroraServerlessV2AcuHour}/ACU-h`,
  };
}

function price(resources: Resources, id: string, type: string, props: Props): Pick<IdleRow, 'monthly' | 'note'> {
  switch (type) {
    case 'AWS::EC2::NatGateway':
      return {
        monthly: P.natGatewayHour * H,
        note: `$${P.natGatewayHour}/h; data processing is usage, none when idle`,
      };
    case 'AWS::EC2::EIP':
      return { monthly: P.publicIpv4Hour * H, note: `public IPv4 address, $${P.publicIpv4Hour}/h` };
    case 'AWS::RDS::DBProxy':
      return priceProxy(resources, id, props);
    case 'AWS::RDS::DBInstance':
      return priceInstance(resources, props);
    case 'AWS::RDS::DBCluster':
      return {
        monthly: ASSUMPTIONS.auroraStorageGb * P.auroraStorageGbMonth,
        note:
          `storage, assumed ${ASSUMPTIONS.auroraStorageGb} GB x $${P.auroraStorageGbMonth}/GB-month ` +
          '(compute: its instances)',
      };
    case 'AWS::SecretsManager::Secret':
      return { monthly: P.secretMonth, note: `$${P.secretMonth}/secret-month` };
    case 'AWS::KMS::Key':
      return { monthly: P.kmsKeyMonth, note: `customer managed key, $${P.kmsKeyMonth}/month` };
    case 'AWS::CloudWatch::Alarm':
      return { monthly: P.alarmMonth, note: 'standard alarm (account free tier of 10 not applied)' };
    case 'AWS::CloudWatch::Dashboard':
      return { monthly: P.dashboardMonth, note: 'account free tier of 3 dashboards not applied' };
    case 'AWS::EC2::VPCEndpoint': {
      if (props.VpcEndpointType !== 'Interface') return { monthly: 0, note: 'gateway endpoint: free' };
      const azs = ((props.SubnetIds as unknown[] | undefined) ?? []).length;
      return { monthly: azs * P.interfaceEndpointAzHour * H, note: `interface endpoint in ${azs} AZ` };
    }
    case 'AWS::Logs::LogGroup': {
      const days = props.RetentionInDays as number | undefined;
      return {
        monthly: ASSUMPTIONS.logGroupStoredGb * P.logsStorageGbMonth,
        note: `retention ${days ? `${days} days` : 'never expires'}; assumed ${ASSUMPTIONS.logGroupStoredGb} GB stored`,
      };
    }
    default:
      return { monthly: null, note: 'no price known' };
  }
}

/** Per-month idle cost of every resource of a synthesized template; free types once each, with the reason. */
export function idleCost(template: StackTemplate): IdleCost {
  const resources = template.Resources;
  const rows: IdleRow[] = [];
  const free = new Map<string, number>();
  for (const [id, { Type: type, Properties: props = {} }] of Object.entries(resources)) {
    if (Object.hasOwn(FREE, type)) free.set(type, (free.get(type) ?? 0) + 1);
    else rows.push({ resource: id.replace(/[0-9A-F]{8}[0-9a-f]*$/, ''), type, ...price(resources, id, type, props) });
  }
  rows.sort((a, b) => (b.monthly ?? -1) - (a.monthly ?? -1));
  return {
    rows,
    free: [...free].sort().map(([type, count]) => ({ type, count, reason: FREE[type] })),
    total: rows.reduce((n, r) => n + (r.monthly ?? 0), 0),
  };
}

export function idleCostBench(template: StackTemplate = stackTemplate()): { total: number } {
  const { rows, free, total } = idleCost(template);
  console.log(
    `idle cost: the synthesized stack per month with no experiment running (us-east-1 list prices, ${H} h a month)`,
  );
  // A cent's fraction printed as 0.00 would read as free.
  const money = (n: number) => (n > 0 && n < 0.005 ? '<0.01' : fmt(n, 2));
  const width = Math.max(...rows.map((r) => r.resource.length));
  const typeWidth = Math.max(...rows.map((r) => r.type.length));
  for (const r of rows.filter((row) => row.monthly !== null))
    console.log(
      `  ${r.resource.padEnd(width)}  ${r.type.padEnd(typeWidth)}  $${money(r.monthly!).padStart(6)}` +
        `  ${fmt((100 * r.monthly!) / total, 1).padStart(5)}%  ${r.note}`,
    );
  for (const r of rows.filter((row) => row.monthly === null))
    console.log(`  ${r.resource.padEnd(width)}  unpriced: ${r.type} (${r.note})`);
  console.log(`  ${'total'.padEnd(width)}  ${''.padEnd(typeWidth)}  $${money(total).padStart(6)}  100.0%`);
  const before = BEFORE_ISSUE_16.reduce((n, r) => n + r.monthly, 0);
  console.log(
    `  ${'before serverless'.padEnd(width)}  ${'(reference)'.padEnd(typeWidth)}  $${money(before).padStart(6)}` +
      `  ${BEFORE_ISSUE_16.map((r) => `${r.resource} $${money(r.monthly)}`).join(', ')}`,
  );
  console.log(
    `  goal: under $${IDLE_GOAL}/month idle; this total is ${fmt(total / IDLE_GOAL, 2)}x the goal ` +
      `(${total < IDLE_GOAL ? 'met' : 'missed'}), ${fmt(before / Math.max(total, 0.01), 0)}x less than before`,
  );
  console.log('  free when idle:');
  for (const f of free) console.log(`    ${f.type} x${f.count}: ${f.reason}`);
  // not resources of the template: what the functions send while they run (bench/cost.ts prices a run's)
  console.log(
    `    custom metrics (embedded metric format, core/telemetry/metrics.ts): at most ${customMetricCount()}, ` +
      `$${P.customMetricMonth}/metric-month billed by the hour only while sent: none when no experiment runs`,
  );
  console.log("    the functions' log lines (one per turn and per experiment event): CloudWatch Logs ingestion, usage");
  return { total };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) idleCostBench();
