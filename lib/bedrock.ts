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
import { fact } from '../aws-facts/facts.ts';

/**
 * Default destination Regions per profile prefix: one AWS fact per geography (aws-facts/facts.ts, each with its
 * page), the union over the profiles of that geography, so one list serves every model of the prefix. A profile
 * whose destinations differ (AWS adds Regions over time) is served by -c bedrockRegions=...
 * (AriadneStackProps.bedrockRegions), which replaces these lists.
 */
export const PROFILE_REGIONS: Record<string, readonly string[]> = {
  us: fact('bedrock.profile-destinations-us').value,
  'us-gov': fact('bedrock.profile-destinations-us-gov').value,
  ca: fact('bedrock.profile-destinations-ca').value,
  eu: fact('bedrock.profile-destinations-eu').value,
  apac: fact('bedrock.profile-destinations-apac').value,
  jp: fact('bedrock.profile-destinations-jp').value,
  au: fact('bedrock.profile-destinations-au').value,
  // Any commercial Region (bedrock.profile-destinations-global): authorized by the Region-less model ARN (and the
  // source Region's), not a list.
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
