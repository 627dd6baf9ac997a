// A local server speaking Service Quotas' JSON 1.1 protocol for the two reads the CLI makes of Bedrock's quotas:
// ListServiceQuotas (aws-facts: service-quotas.list-max-results; authorized on "*", no resource type) and
// GetServiceQuota (NoSuchResourceException for an unknown code; authorized on the quota's ARN). Its quotas are
// settable; by default Bedrock's for the stack's default models, named as AWS names them
// (aws-facts: bedrock.runtime-quotas-tokens-only).
import { AwsJsonServer, type AwsJsonReply } from './aws-json-server.ts';
import type { AwsCall, RequestAuthorization, RequestScope } from './authorization.ts';
import { fact } from '../aws-facts/facts.ts';

export interface SimQuota {
  serviceCode: string;
  code: string;
  name: string;
  value: number;
  unit?: string;
}

const TARGET = 'ServiceQuotasV20190624.';
const MAX_RESULTS = fact('service-quotas.list-max-results').value;

/**
 * Quotas of the stack's default models (and earlier ones) through global profiles, and one base model's, named as AWS
 * names them (the page of aws-facts: bedrock.runtime-quotas-tokens-only) and as older accounts list them.
 */
export const DEFAULT_SIM_QUOTAS: SimQuota[] = [
  ['L-GS55T', 'Global cross-Region InvokeModel tokens per minute for Anthropic Claude Sonnet 5.5', 2_000_000],
  ['L-GS55R', 'Global cross-Region InvokeModel requests per minute for Anthropic Claude Sonnet 5.5', 200],
  ['L-GS46T', 'Global cross-Region InvokeModel tokens per minute for Anthropic Claude Sonnet 4.6', 2_000_000],
  ['L-GS46R', 'Global cross-Region InvokeModel requests per minute for Anthropic Claude Sonnet 4.6', 200],
  ['L-CS46T', 'Cross-Region InvokeModel tokens per minute for Anthropic Claude Sonnet 4.6', 1_000_000],
  ['L-CS46R', 'Cross-Region InvokeModel requests per minute for Anthropic Claude Sonnet 4.6', 100],
  ['L-GH45T', 'Global cross-Region InvokeModel tokens per minute for Anthropic Claude Haiku 4.5', 4_000_000],
  ['L-GH45R', 'Global cross-Region InvokeModel requests per minute for Anthropic Claude Haiku 4.5', 400],
  ['L-ONLT', 'On-demand model inference tokens per minute for Amazon Nova Lite', 200_000],
  ['L-ONLR', 'On-demand model inference requests per minute for Amazon Nova Lite', 100],
].map(([code, name, value]) => ({ serviceCode: 'bedrock', code, name, value, unit: 'None' }) as SimQuota);

export class ServiceQuotasSim extends AwsJsonServer {
  constructor(
    public quotas: SimQuota[] = DEFAULT_SIM_QUOTAS.map((q) => ({ ...q })),
    opts: { authorizer?: RequestAuthorization } = {},
  ) {
    super('1.1', '', opts.authorizer);
  }

  protected calls(target: string, body: any, s: RequestScope): AwsCall[] {
    if (target === `${TARGET}ListServiceQuotas`) return [{ action: 'servicequotas:ListServiceQuotas', resource: '*' }];
    if (target === `${TARGET}GetServiceQuota`)
      return [
        {
          action: 'servicequotas:GetServiceQuota',
          resource: `arn:${s.partition}:servicequotas:${s.region}:${s.account}:${body.ServiceCode}/${body.QuotaCode}`,
          context: { 'servicequotas:service': String(body.ServiceCode) },
        },
      ];
    return [];
  }

  private shape(q: SimQuota) {
    return {
      ServiceCode: q.serviceCode,
      ServiceName: q.serviceCode === 'bedrock' ? 'Amazon Bedrock' : q.serviceCode,
      QuotaArn: `arn:aws:servicequotas:eu-west-1:123456789012:${q.serviceCode}/${q.code}`,
      QuotaCode: q.code,
      QuotaName: q.name,
      Value: q.value,
      Unit: q.unit ?? 'None',
      Adjustable: true,
      GlobalQuota: false,
    };
  }

  protected operation(target: string, body: any): AwsJsonReply {
    if (typeof body.ServiceCode !== 'string' || !body.ServiceCode)
      return this.error('IllegalArgumentException', 'ServiceCode is required');
    const ofService = this.quotas.filter((q) => q.serviceCode === body.ServiceCode);
    if (target === `${TARGET}GetServiceQuota`) {
      const quota = ofService.find((q) => q.code === body.QuotaCode);
      if (!quota) return this.error('NoSuchResourceException', `no quota ${body.QuotaCode} of ${body.ServiceCode}`);
      return { status: 200, payload: { Quota: this.shape(quota) } };
    }
    if (target !== `${TARGET}ListServiceQuotas`)
      return this.error('UnknownOperationException', `unknown operation ${target}`);
    const max = body.MaxResults ?? MAX_RESULTS;
    if (!Number.isInteger(max) || max < 1 || max > MAX_RESULTS)
      return this.error('IllegalArgumentException', `MaxResults must be 1 to ${MAX_RESULTS}`);
    const start = body.NextToken ? Number(Buffer.from(body.NextToken, 'base64').toString()) : 0;
    const page = ofService.slice(start, start + max);
    const next = start + max < ofService.length ? Buffer.from(String(start + max)).toString('base64') : undefined;
    return { status: 200, payload: { Quotas: page.map((q) => this.shape(q)), ...(next ? { NextToken: next } : {}) } };
  }
}
