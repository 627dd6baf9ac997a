// Which Bedrock ARNs invoking a list of models and profiles needs, free of aws-cdk-lib so the researcher policy and
// the stack's grant (lib/bedrock.ts) compute them alike. Per the Bedrock user guide's inference profile pages, a
// profile needs bedrock:InvokeModel on the profile ARN in the source Region AND on the model in every Region it may
// route to (aws-facts: bedrock.profile-destinations-*); a global profile, the model in the source Region and the
// Region-less model ARN (arn:aws:bedrock:::foundation-model/ID).
import { geographicProfileDestinations } from '../aws-facts/facts.ts';

/**
 * Default destination Regions per profile prefix: one AWS fact per geography (aws-facts/facts.ts, each with its
 * page), the union over the profiles of that geography, so one list serves every model of the prefix. A profile
 * whose destinations differ (AWS adds Regions over time) is served by -c bedrockRegions=...
 * (AriadneStackProps.bedrockRegions), which replaces these lists.
 */
export const PROFILE_REGIONS: Record<string, readonly string[]> = {
  ...geographicProfileDestinations(),
  // Any commercial Region (bedrock.profile-destinations-global): authorized by the Region-less model ARN (and the
  // source Region's), not a list.
  global: [],
};

/** The profile prefix of an inference profile id ("us" of "us.anthropic..."), or undefined for a model id. */
export function profilePrefix(id: string): string | undefined {
  const head = id.split('.')[0];
  return id.includes('.') && Object.hasOwn(PROFILE_REGIONS, head) ? head : undefined;
}

export interface BedrockInvokeArns {
  /** Model ids called directly, in the source Region, and the profiles: allowed outright. */
  direct: string[];
  profiles: string[];
  /** The foundation models the profiles route to: allowed only through one of `profiles` (InferenceProfileArn). */
  routed: string[];
}

/** The ARNs for `ids` called from `region` of `account` (each may be a CDK token: they are only concatenated). */
export function bedrockInvokeArns(
  ids: readonly string[],
  where: { partition: string; region: string; account: string; regions?: readonly string[] },
): BedrockInvokeArns {
  const model = (id: string, region: string) => `arn:${where.partition}:bedrock:${region}::foundation-model/${id}`;
  const out: BedrockInvokeArns = { direct: [], profiles: [], routed: [] };
  for (const id of ids) {
    const prefix = profilePrefix(id);
    if (prefix === undefined) {
      out.direct.push(model(id, where.region));
      continue;
    }
    out.profiles.push(`arn:${where.partition}:bedrock:${where.region}:${where.account}:inference-profile/${id}`);
    const base = id.slice(prefix.length + 1);
    if (prefix === 'global') out.routed.push(model(base, where.region), model(base, ''));
    for (const region of where.regions ?? PROFILE_REGIONS[prefix]) out.routed.push(model(base, region));
  }
  out.routed = [...new Set(out.routed)];
  return out;
}
