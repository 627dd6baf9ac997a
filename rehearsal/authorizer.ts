// What the rehearsal's local AWS servers call for each incoming request: who signed it (the SigV4 Credential's
// access key id, mapped to one function or state machine of the template), whether that principal's role may make
// the calls the server derived from the request (iam.ts), and, if not, the AccessDenied reply in the protocol's
// own format, so the SDK in the calling bundle raises the exception it would raise on AWS. Every decision is
// counted for the rehearsal's table.
import type { IncomingHttpHeaders } from 'node:http';
import { profilePrefix } from '../lib/bedrock.ts';
import { fact } from '../aws-facts/facts.ts';
import {
  accessDeniedReply,
  invalidKeyReply,
  type AuthorizationResult,
  type AwsCall,
  type AwsProtocol,
  type CallerIdentity,
  type Denial,
  type RequestAuthorization,
  type RequestScope,
  type SimulatedDecision,
} from '../simulators/authorization.ts';
import { SimulationInputError, type Decision, type IamModel } from './iam.ts';

/** SigV4: `AWS4-HMAC-SHA256 Credential=AKIA.../20251123/eu-west-1/ssm/aws4_request, SignedHeaders=..., ...`. */
const CREDENTIAL = /Credential=([A-Z0-9]+)\/\d{8}\/([a-z0-9-]+)\/([a-z0-9-]+)\/aws4_request/;

/** The access key id, Region and service of a request's SigV4 Authorization header, if it has one. */
function signatureScope(
  headers: IncomingHttpHeaders,
): { accessKeyId: string; region: string; service: string } | undefined {
  const m = CREDENTIAL.exec(String(headers.authorization ?? ''));
  return m ? { accessKeyId: m[1], region: m[2], service: m[3] } : undefined;
}

/**
 * Where AWS may route a geographic profile's request, read from AWS's facts (not from lib/bedrock.ts, which grants
 * from them): a stack that grants fewer Regions than these is denied here, as AWS would deny it.
 */
const PROFILE_DESTINATIONS: Record<string, readonly string[]> = {
  us: fact('bedrock.profile-destinations-us').value,
  'us-gov': fact('bedrock.profile-destinations-us-gov').value,
  ca: fact('bedrock.profile-destinations-ca').value,
  eu: fact('bedrock.profile-destinations-eu').value,
  apac: fact('bedrock.profile-destinations-apac').value,
  jp: fact('bedrock.profile-destinations-jp').value,
  au: fact('bedrock.profile-destinations-au').value,
};

export class RequestAuthorizer implements RequestAuthorization {
  /** principal -> action -> requests that needed it (allowed and denied). */
  readonly counts = new Map<string, Map<string, number>>();
  readonly denials: Denial[] = [];
  /** Denials a scenario provoked on purpose and checked itself: kept apart from `denials`, which fail the rehearsal. */
  readonly expectedDenials: Denial[] = [];
  /**
   * Decisions already made: an identity-policy evaluation depends only on the principal, action, resource and
   * context, and the policies do not change during a rehearsal, so a sweep's 10,000 identical StartExecution
   * checks are evaluated once. Every request is still counted, and every denial recorded.
   */
  private readonly decisions = new Map<string, Promise<Decision>>();

  constructor(
    readonly model: IamModel,
    /** The Regions each inference profile prefix routes to; default AWS's facts (what the stack must grant). */
    private readonly profileRegions: Record<string, readonly string[]> = PROFILE_DESTINATIONS,
  ) {}

  /**
   * What bedrock:InvokeModel (also the permission of Converse) authorizes for a model id of a request path: the
   * foundation model in the caller's Region, or the inference profile, and then, because a profile routes the
   * request on, the foundation model in each Region the profile may route to, with bedrock:InferenceProfileArn
   * set (Bedrock User Guide, "Prerequisites for inference profiles"). Every destination is checked, not one
   * picked: AWS may route any request to any of them. A global profile is checked on the source Region's model
   * only: AWS also authorizes the Region-less model ARN (arn:aws:bedrock:::foundation-model/ID, which
   * lib/bedrock.ts grants), but iam-simulate matches no resource type to an ARN without a Region, so that check
   * is not rehearsed.
   */
  bedrockInvokeCalls(modelId: string, s: RequestScope): AwsCall[] {
    const action = 'bedrock:InvokeModel';
    const model = (id: string, region: string) => `arn:${s.partition}:bedrock:${region}::foundation-model/${id}`;
    const profileArn = /^arn:[a-z-]+:bedrock:[a-z0-9-]+:\d{12}:inference-profile\/(.+)$/.exec(modelId);
    if (modelId.startsWith('arn:') && !profileArn) return [{ action, resource: modelId }];
    const id = profileArn ? profileArn[1] : modelId;
    const prefix = profilePrefix(id);
    if (prefix === undefined) return [{ action, resource: model(id, s.region) }];
    const profile = profileArn
      ? modelId
      : `arn:${s.partition}:bedrock:${s.region}:${s.account}:inference-profile/${id}`;
    const base = id.slice(prefix.length + 1);
    const regions = prefix === 'global' ? [s.region] : (this.profileRegions[prefix] ?? []);
    const context = { 'bedrock:InferenceProfileArn': profile };
    return [
      { action, resource: profile },
      ...regions.map((region) => ({ action, resource: model(base, region), context })),
    ];
  }

  /**
   * Authorizes a request: `derive` turns the signer's scope into the calls AWS would authorize for it (none: the
   * server answers the request itself, e.g. an unknown operation). Signatures are NOT verified: every access key
   * is ours, handed to our own child processes, so a signature would prove nothing the key id does not; what the
   * rehearsal tests is the role's policies, and the SDK's signing is AWS's code, not ours.
   */
  async check(
    headers: IncomingHttpHeaders,
    protocol: AwsProtocol,
    derive: (scope: RequestScope) => AwsCall[],
  ): Promise<AuthorizationResult> {
    const signed = signatureScope(headers);
    const env = this.model.values.env;
    const principal = signed && this.model.byAccessKeyId(signed.accessKeyId);
    if (!signed || !principal) {
      const denial: Denial = {
        principal: signed ? `(unknown access key ${signed.accessKeyId})` : '(unsigned)',
        action: '*',
        resource: '*',
        explanation: 'the access key id is not one the rehearsal handed to a function',
      };
      this.denials.push(denial);
      return { ok: false, denial, reply: invalidKeyReply(protocol) };
    }
    const calls = derive({ ...signed, account: env.account, partition: env.partition });
    // Counted once per action and request: an inference profile's routed checks are one call, not several.
    for (const action of new Set(calls.map((c) => c.action))) {
      const actions = this.counts.get(principal.logicalId) ?? new Map<string, number>();
      actions.set(action, (actions.get(action) ?? 0) + 1);
      this.counts.set(principal.logicalId, actions);
    }
    for (const call of calls) {
      const denial = await this.deny(principal.logicalId, call);
      if (denial) {
        // AWS's wording for an identity-policy denial of an assumed role (an IAM user: its own ARN).
        const user =
          principal.kind === 'user'
            ? principal.roleArn
            : `arn:${env.partition}:sts::${env.account}:assumed-role/${principal.roleArn.split('/').pop()}/` +
              principal.logicalId;
        const message =
          `User: ${user} is not authorized to perform: ${call.action} on resource: ` +
          `${call.resource} because no identity-based policy allows the ${call.action} action`;
        return { ok: false, denial, reply: accessDeniedReply(protocol, message) };
      }
    }
    return { ok: true, principal: principal.logicalId };
  }

  /**
   * A call AWS makes with the principal's role but no request reaches a server for: the service acting on the
   * role's behalf (a Distributed Map starting its child workflow executions, Step Functions invoking a Task's
   * Lambda function). Counted and, when denied, recorded like a request's call; true when every call is allowed.
   */
  async checkServiceCalls(principal: string, calls: AwsCall[]): Promise<boolean> {
    const id = this.model.principal(principal).logicalId;
    for (const action of new Set(calls.map((c) => c.action))) {
      const actions = this.counts.get(id) ?? new Map<string, number>();
      actions.set(action, (actions.get(action) ?? 0) + 1);
      this.counts.set(id, actions);
    }
    for (const call of calls) if (await this.deny(id, call)) return false;
    return true;
  }

  /** Whether the principal may make the call, without counting or recording it (S3's NoSuchKey-or-403 choice). */
  async allows(principal: string, call: AwsCall): Promise<boolean> {
    return (await this.decide(principal, call)).allowed;
  }

  /**
   * Runs `fn`, whose requests a scenario expects to be denied: the denials they meet are moved to expectedDenials
   * and returned for the scenario to check (the world is idle meanwhile, so every denial since `fn` began is its own).
   */
  async expectingDenials<T>(fn: () => Promise<T>): Promise<{ result: T; denied: Denial[] }> {
    const before = this.denials.length;
    const result = await fn();
    const denied = this.denials.splice(before);
    this.expectedDenials.push(...denied);
    return { result, denied };
  }

  /** The principal of a signed request's access key, if the rehearsal handed that key out. */
  principalOf(headers: IncomingHttpHeaders): string | undefined {
    const signed = signatureScope(headers);
    return signed && this.model.byAccessKeyId(signed.accessKeyId)?.logicalId;
  }

  /** The denial of one call (recorded), or null when it is allowed. */
  private async deny(principal: string, call: AwsCall): Promise<Denial | null> {
    const decision = await this.decide(principal, call);
    if (decision.allowed) return null;
    const denial: Denial = {
      principal,
      action: call.action,
      resource: call.resource,
      explanation: decision.explanation,
    };
    this.denials.push(denial);
    return denial;
  }

  /** The model's decision (cached); a call the simulator cannot evaluate (an ARN of the wrong type) is a denial too. */
  private decide(principal: string, call: AwsCall): Promise<Decision> {
    const key = JSON.stringify([principal, call.action, call.resource, call.context ?? null]);
    let decision = this.decisions.get(key);
    if (!decision) {
      decision = this.model.authorize({ principal, ...call }).catch((err: unknown) => {
        if (!(err instanceof SimulationInputError)) throw err;
        return { allowed: false, principal, ...call, explanation: `not evaluable: ${err.message}` };
      });
      this.decisions.set(key, decision);
    }
    return decision;
  }

  get partition(): string {
    return this.model.values.env.partition;
  }

  callerIdentity(principal: string): CallerIdentity | undefined {
    const p = this.model.principals.find((x) => x.logicalId === principal);
    return p && { arn: p.roleArn, accessKeyId: p.accessKeyId };
  }

  async simulate(policySourceArn: string, action: string, resource: string): Promise<SimulatedDecision | undefined> {
    const source = this.model.principals.find((p) => p.roleArn === policySourceArn);
    if (!source) return undefined;
    const d = await this.model.authorize({ principal: source.logicalId, action, resource });
    return d.allowed ? 'allowed' : /explicitly denied/.test(d.explanation) ? 'explicitDeny' : 'implicitDeny';
  }

  /** The counts as a plain object: principal -> action -> count. */
  summary(): Record<string, Record<string, number>> {
    return Object.fromEntries([...this.counts].map(([p, actions]) => [p, Object.fromEntries(actions)]));
  }
}
