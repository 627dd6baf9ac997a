// Which Bedrock ARNs the model-calling function may invoke. Models are called
// on demand either by model id ("anthropic.claude-...", served in the stack's
// Region) or through a cross-Region (system-defined) inference profile
// ("us.anthropic.claude-...", "eu.", "apac.", "global.", ...). Per the Bedrock
// user guide ("Prerequisites for inference profiles", "Geographic cross-Region
// inference", "Global cross-Region inference"), invoking a profile needs
// bedrock:InvokeModel on the profile ARN in the source Region AND on the
// foundation model in every Region the profile may route to; a global profile
// needs the model in the source Region and the Region-less model ARN
// (arn:aws:bedrock:::foundation-model/ID).
import { ArnFormat, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';

/**
 * Default destination Regions per profile prefix: the union over the profiles of each geography in
 * the Bedrock user guide ("Supported Regions and models for inference profiles"), so one list serves
 * every model of that prefix. A profile whose destinations differ (AWS adds Regions over time) is
 * served by -c bedrockRegions=... (AriadneStackProps.bedrockRegions), which replaces these lists.
 */
export const PROFILE_REGIONS: Record<string, readonly string[]> = {
  us: ['us-east-1', 'us-east-2', 'us-west-1', 'us-west-2'],
  'us-gov': ['us-gov-east-1', 'us-gov-west-1'],
  ca: ['ca-central-1', 'ca-west-1'],
  eu: ['eu-central-1', 'eu-central-2', 'eu-north-1', 'eu-south-1', 'eu-south-2', 'eu-west-1', 'eu-west-2', 'eu-west-3'],
  apac: [
    'ap-northeast-1',
    'ap-northeast-2',
    'ap-northeast-3',
    'ap-south-1',
    'ap-south-2',
    'ap-southeast-1',
    'ap-southeast-2',
    'ap-southeast-3',
    'ap-southeast-4',
  ],
  jp: ['ap-northeast-1', 'ap-northeast-3'],
  au: ['ap-southeast-2', 'ap-southeast-4'],
  // Any commercial Region: authorized by the Region-less model ARN (and the source Region's), not a list.
  global: [],
};

/** The profile prefix of an inference profile id ("us" of "us.anthropic..."), or undefined for a model id. */
export function profilePrefix(id: string): string | undefined {
  const head = id.split('.')[0];
  return id.includes('.') && Object.hasOwn(PROFILE_REGIONS, head) ? head : undefined;
}

/**
 * Two statements: the model ids (in the stack's Region) and the profiles, unconditionally; the
 * foundation models the profiles route to, only when reached through one of those profiles
 * (bedrock:InferenceProfileArn), so a routed Region's model cannot be called directly.
 */
export function bedrockInvokeStatements(stack: Stack, ids: string[], regions?: string[]): PolicyStatement[] {
  const model = (id: string, region?: string) =>
    stack.formatArn({
      service: 'bedrock',
      region,
      account: '',
      resource: 'foundation-model',
      resourceName: id,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
  if (ids.length === 0) return [];
  const direct: string[] = [];
  const profiles: string[] = [];
  const routed: string[] = [];
  for (const id of ids) {
    const prefix = profilePrefix(id);
    if (prefix === undefined) {
      direct.push(model(id));
      continue;
    }
    profiles.push(
      stack.formatArn({
        service: 'bedrock',
        resource: 'inference-profile',
        resourceName: id,
        arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
      }),
    );
    const base = id.slice(prefix.length + 1);
    if (prefix === 'global') routed.push(model(base), model(base, ''));
    for (const region of regions ?? PROFILE_REGIONS[prefix]) routed.push(model(base, region));
  }
  const statements = [new PolicyStatement({ actions: ['bedrock:InvokeModel'], resources: [...direct, ...profiles] })];
  if (routed.length > 0)
    statements.push(
      new PolicyStatement({
        actions: ['bedrock:InvokeModel'],
        resources: [...new Set(routed)],
        conditions: { ArnLike: { 'bedrock:InferenceProfileArn': profiles } },
      }),
    );
  return statements;
}
