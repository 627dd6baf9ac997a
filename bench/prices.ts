// AWS list prices, us-east-1, on-demand, in USD: one table for the cost
// benches (idle cost now, the redesign's estimates later). Each price names the
// pages it was checked against and the day they were read. Account-wide free
// tiers are noted but not applied: the account may spend them on other stacks.
import { fact } from '../aws-facts/facts.ts';

/** AWS bills monthly figures as 730 hours (365 × 24 / 12). */
export const HOURS_PER_MONTH = 730;

export const PRICES = {
  // Hourly while the gateway exists, traffic or not; data processing ($0.045/GB) is usage. Read 2026-11-23:
  // Amazon VPC pricing, https://aws.amazon.com/vpc/pricing/ (as transcribed 2026-09-20 in
  // api-evangelist/amazon-vpc, plans/amazon-vpc-plans-pricing.yml), and "AWS NAT Gateway Pricing",
  // https://basavytix.com/blog/aws-nat-gateway-pricing (us-east-1: $0.045/h, $32.85 for 730 h).
  natGatewayHour: 0.045,
  // Every AWS-provided public IPv4 address, the NAT gateway's Elastic IP included, since 2024-02-01. Read 2026-11-23:
  // "Identify and optimize public IPv4 address usage on AWS" (AWS Networking & Content Delivery blog),
  // aws.amazon.com/blogs/networking-and-content-delivery/identify-and-optimize-public-ipv4-address-usage-on-aws/
  // and "Understand AWS Public IPv4 Address Usage and Pricing",
  // https://vishalvyas.com/understand-aws-public-ipv4-address-usage-and-pricing/
  publicIpv4Hour: 0.005,
  // Per ACU-hour of the target database, at least 8 ACUs for an Aurora Serverless v2 target. Read 2026-11-23:
  // "Amazon Aurora Serverless v2 and Amazon RDS Proxy minimum cost" (Serverworks, June 2024),
  // https://blog.serverworks.co.jp/amazon-aurora-serverless-v2-and-amazon-rds-proxy-minimum-cost
  // (AWS's own page, https://aws.amazon.com/rds/proxy/pricing/, was not in the searchable corpus).
  rdsProxyAcuHour: 0.015,
  rdsProxyMinimumAcus: 8,
  // Aurora Serverless v2 per ACU-hour, billed per instance down to MinCapacity (0 with auto-pause). Read 2026-11-23:
  // "Aurora Serverless v2 cost: what an ACU really costs you", https://c3x.dev/blog/aws-aurora-serverless-v2-cost/
  // and "Aurora Serverless v2 Pricing", https://awsnegotiations.com/aurora-serverless-v2-pricing.html
  auroraServerlessV2AcuHour: 0.12,
  // Aurora Standard storage per GB-month (backups up to the cluster's size are free). Read 2026-11-23:
  // "Aurora Serverless v2 Pricing: When Elasticity Pays Back",
  // https://awsnegotiations.com/blog/aurora-serverless-v2-pricing.html, and Amazon Aurora pricing,
  // https://aws.amazon.com/rds/aurora/pricing/ (storage billed per GB-month).
  auroraStorageGbMonth: 0.1,
  // Per secret-month; API calls $0.05 per 10,000 (a monthly rotation makes a few). Read 2026-11-23:
  // "AWS Secrets Manager", https://hivebook.wiki/wiki/aws-secrets-manager-rotated-secrets-dynamic-db-credentials-kms
  secretMonth: 0.4,
  // Per customer managed key-month; AWS managed keys (aws/rds, aws/secretsmanager) are free. Read 2026-11-23:
  // AWS KMS pricing, https://aws.amazon.com/kms/pricing/
  kmsKeyMonth: 1,
  // Standard-resolution metric alarm-month (free tier: 10 alarm metrics per account), whether or not its metric has
  // data: "a metric alarm that references one metric incurs one alarm-metric cost per hour" (CloudWatch User Guide,
  // cloudwatch_billing.html, read 2026-11-25). Read 2026-11-23:
  // Amazon CloudWatch pricing, https://aws.amazon.com/cloudwatch/pricing/ (free tier table), and
  // "aws_cloudwatch_metric_alarm cost estimation", https://c3x.dev/resources/aws/aws_cloudwatch_metric_alarm
  alarmMonth: 0.1,
  // Custom metric-month, first 10,000 metrics (free tier: 10 custom metrics per account, not applied), billed per
  // metric-hour while data is sent. Read 2026-11-25: the metrics tier of Amazon CloudWatch pricing,
  // https://aws.amazon.com/cloudwatch/pricing/, is not in the text stored here; $0.30 as transcribed from it in
  // api-evangelist/cloudwatch (plans/cloudwatch-plans-pricing.yml, "Custom metrics - first 10,000", $0.30) and by
  // c3x.dev/blog/aws-cloudwatch-metrics-cost. The hourly proration is AWS's
  // (aws-facts: cloudwatch.custom-metric-hourly-proration); and "Each different value found for a dimension is
  // treated as a separate metric and accrues charges as a separate custom metric" (CloudWatch Logs API reference,
  // MetricTransformation).
  customMetricMonth: 0.3,
  // Custom dashboard-month (free tier: 3 dashboards of up to 50 metrics per account). Read 2026-11-23:
  // Amazon CloudWatch pricing, https://aws.amazon.com/cloudwatch/pricing/, and "Amazon CloudWatch Pricing: The 10
  // Billing Dimensions", https://www.factualminds.com/blog/amazon-cloudwatch-pricing-metrics-logs-alarms-dashboards/
  dashboardMonth: 3,
  // Interface endpoint per AZ-hour; data processed ($0.01/GB) is usage. Read 2026-11-23:
  // AWS PrivateLink pricing, https://aws.amazon.com/privatelink/pricing/ (hourly per AZ while provisioned), and
  // "NAT Gateway data processing", https://knbrlo.com/notes/aws/nat-gateway-data-processing ($0.01/h per AZ)
  interfaceEndpointAzHour: 0.01,
  // CloudWatch Logs stored per GB-month (free tier: 5 GB of ingestion and storage per account). Read 2026-11-23:
  // Amazon CloudWatch pricing, https://aws.amazon.com/cloudwatch/pricing/
  logsStorageGbMonth: 0.03,
  // CloudWatch Logs ingestion per GB, Standard log class, us-east-1 (Lambda's and Step Functions' logs are vended
  // logs, whose first tier is the same $0.50). Amazon CloudWatch pricing, https://aws.amazon.com/cloudwatch/pricing/:
  // its logs table was not in the text stored here (read 2026-11-24); $0.50/GB as transcribed from it by
  // c3x.dev/blog/cloudwatch-logs-cost-optimization and hykell.com ("In standard regions like us-east-1, AWS charges
  // $0.50 per GB of data collected").
  logsIngestionGb: 0.5,
  // Per trace recorded past the free tier (100,000 a month, not applied). AWS X-Ray pricing,
  // https://aws.amazon.com/xray/pricing/ (read 2026-11-24 in its German edition: recorded traces beyond the free tier
  // "werden mit 5 USD pro Million in Rechnung gestellt (0,000005 USD pro Ablaufverfolgung)").
  xrayTraceRecorded: 5 / 1e6,
  // RDS Data API requests (Aurora Serverless v2 and provisioned), per million, each 32 KB of payload one request.
  // From Amazon Aurora pricing, https://aws.amazon.com/rds/aurora/pricing/ ("Data API costs": $0.35 per million
  // for the first billion a month), as remembered, not re-read: that page was not in the searchable corpus.
  dataApiMillionRequests: 0.35,
  dataApiRequestUnitBytes: 32 * 1024,
  // Step Functions Standard, per state transition past the free tier (4,000 a month, not applied), retries counted.
  // Read 2026-11-28: AWS Step Functions pricing, https://aws.amazon.com/step-functions/pricing/ ("$0.025 per 1,000
  // state transitions"; its state transitions table: "US East (N. Virginia) | $0.0250"). bench/cost.ts prices by it.
  sfnStateTransition: 0.025 / 1000,
  // Step Functions Express, per request ("a request each time it starts executing a workflow"), no free tier. Read
  // 2026-11-28: the same page's pricing example, "The price is $1.00 per million requests" (the page's Express table
  // by Region is not in the stored text: the example was read in mdsite.deno.dev's copy of the page), and The AWS Step
  // Functions Workshop's nested-Express cost page (aws-samples/the-aws-step-functions-workshop, module 13): "Execution
  // cost = $0.000001 per request" in N. Virginia.
  sfnExpressRequest: 1 / 1e6,
  // Step Functions Express duration per GB-second, first 1,000 GB-hours a month ($0.06 per GB-hour; the example's next
  // 4,000 GB-hours $0.03, beyond that $0.01642). Read 2026-11-28 in the pricing example above ("$0.06000 per GB-hour x
  // 1,000 GB-Hours"); the Workshop's "$ 0.0000001042" per 100 ms at 64 MB is the same price.
  sfnExpressGbSecond: 0.06 / 3600,
  // How Express duration and memory are billed: AWS's rule, so a fact (aws-facts: sfn.express-billing-increments),
  // which the simulator's StartSyncExecution bills by too.
  sfnExpressBilledDurationMs: fact('sfn.express-billing-increments').value.durationMs,
  sfnExpressBilledMemoryMb: fact('sfn.express-billing-increments').value.memoryMb,
} as const;

/** What the template cannot say: stated here, printed beside the rows that use them. */
export const ASSUMPTIONS = {
  /** Experiments' rows: a few hundred thousand steps take well under 1 GB. */
  auroraStorageGb: 1,
  /** Per log group: retained execution and flow logs of an idle stack. */
  logGroupStoredGb: 0.1,
  /**
   * Wall time of one turn on AWS: two Lambda invocations with a few Data API calls and five state transitions.
   * Not measured (no account); the database is awake, at its 0.5 ACU floor, for the whole experiment.
   */
  awsSecondsPerTurn: 0.3,
  /** Capacity while awake: Serverless v2's floor once resumed from 0 (a turn's few statements need no more). */
  awakeAcus: 0.5,
} as const;
