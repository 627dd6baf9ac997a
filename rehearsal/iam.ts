// The IAM side of the deploy rehearsal: who each Lambda function and state machine is (its role), what
// its role may do (the role's policies, taken from the synthesized template, every value resolved by
// template-values.ts) and whether one call is allowed, decided by a real IAM policy evaluator
// (@cloud-copilot/iam-simulate's runSimulation over AWS's Service Authorization Reference data), not by
// string matching of our own.
import { createHash } from 'node:crypto';
import { getDenialReasons, getGrantReasons, runSimulation } from '@cloud-copilot/iam-simulate';
import { TemplateValues, type CfnTemplate, type FakeEnvironment } from '../lib/template-values.ts';
import { fact } from '../aws-facts/facts.ts';

interface PolicyDocument {
  Version?: string;
  Statement: unknown[] | Record<string, unknown>;
}

/** One policy of a role: inline (AWS::IAM::Policy or the role's Policies), customer or AWS managed. */
export interface NamedPolicy {
  name: string;
  source: 'AWS::IAM::Policy' | 'AWS::IAM::Role.Policies' | 'AWS::IAM::ManagedPolicy' | 'AWS managed' | 'user inline';
  document: PolicyDocument;
}

/**
 * A caller of AWS APIs: a Lambda function or a state machine of the stack and the role it runs as, or an IAM user
 * added with addPrincipal (a researcher on a laptop), whose `roleLogicalId` is its own name and `roleArn` its ARN.
 */
export interface IamPrincipal {
  logicalId: string;
  kind: 'function' | 'state-machine' | 'user';
  roleLogicalId: string;
  roleArn: string;
  /** The access key id its rehearsal process signs with (accessKeyIdFor). */
  accessKeyId: string;
  policies: NamedPolicy[];
  /** Managed policy ARNs on the role whose documents are not known here: their grants are not rehearsed. */
  unmodelledManagedPolicies: string[];
}

export interface AuthorizeRequest {
  /** A function's, state machine's or role's logical id. */
  principal: string;
  action: string;
  /** The resource's ARN, or "*" for an action with no resource type (e.g. states:SendTaskSuccess). */
  resource: string;
  context?: Record<string, string | string[]>;
}

export interface Decision {
  allowed: boolean;
  /** The principal's logical id (a function or state machine), the action and resource decided. */
  principal: string;
  action: string;
  resource: string;
  /** Which statements allowed it, or why it was denied, in words. */
  explanation: string;
}

export class UnknownPrincipalError extends Error {
  override readonly name = 'UnknownPrincipalError';
}

/** The simulator refused the input (an unknown action, an ARN of the wrong type for it, a bad policy). */
export class SimulationInputError extends Error {
  override readonly name = 'SimulationInputError';
}

/**
 * AWS managed policies the stack attaches, which the template names only by ARN, with their documents as AWS
 * publishes them (aws-facts: iam.lambda-basic-execution-role). The rehearsal does not simulate CloudWatch Logs (a
 * Lambda's own logging is the runtime's, not a bundle's call), so these only matter if a server ever authorizes
 * logs:* actions.
 */
const BASIC_EXECUTION = structuredClone(fact('iam.lambda-basic-execution-role').value);
const KNOWN_MANAGED_POLICIES: Record<string, PolicyDocument> = {
  'service-role/AWSLambdaBasicExecutionRole': { ...BASIC_EXECUTION, Statement: [...BASIC_EXECUTION.Statement] },
};

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** A deterministic access key id for a logical id: AKIA and 16 base32 characters of its sha256, as AWS keys look. */
export function accessKeyIdFor(logicalId: string): string {
  const digest = createHash('sha256').update(`ariadne-rehearsal:${logicalId}`).digest();
  let out = 'AKIA';
  for (let i = 0; i < 16; i++) out += BASE32[digest[i] % 32];
  return out;
}

const roleRef = (value: unknown): string | undefined => {
  const v = value as { 'Fn::GetAtt'?: [string, string]; Ref?: string } | undefined;
  return v?.['Fn::GetAtt']?.[1] === 'Arn' ? v['Fn::GetAtt'][0] : undefined;
};

export class IamModel {
  readonly values: TemplateValues;
  readonly principals: IamPrincipal[] = [];
  private readonly byKey = new Map<string, IamPrincipal>();

  constructor(template: CfnTemplate, env?: FakeEnvironment) {
    this.values = new TemplateValues(template, env);
    const resources = template.Resources;
    for (const [logicalId, r] of Object.entries(resources)) {
      const kind =
        r.Type === 'AWS::Lambda::Function'
          ? 'function'
          : r.Type === 'AWS::StepFunctions::StateMachine'
            ? 'state-machine'
            : undefined;
      if (!kind) continue;
      const roleLogicalId = roleRef(kind === 'function' ? r.Properties?.Role : r.Properties?.RoleArn);
      if (!roleLogicalId)
        throw new UnknownPrincipalError(`${logicalId}: its role is not a Fn::GetAtt [Role, Arn] of the template`);
      const { policies, unmodelled } = this.rolePolicies(roleLogicalId);
      const principal: IamPrincipal = {
        logicalId,
        kind,
        roleLogicalId,
        roleArn: this.values.attribute(roleLogicalId, 'Arn', `$.Resources.${logicalId}`),
        accessKeyId: accessKeyIdFor(logicalId),
        policies,
        unmodelledManagedPolicies: unmodelled,
      };
      this.principals.push(principal);
      this.byKey.set(principal.accessKeyId, principal);
    }
  }

  /**
   * An IAM user outside the template with one inline policy (e.g. `ariadne policy researcher`'s), evaluated like
   * the stack's roles; returns the access key id its requests sign with. The name must be new.
   */
  addPrincipal(name: string, policy: PolicyDocument): string {
    if (this.principals.some((p) => p.logicalId === name || p.roleLogicalId === name))
      throw new UnknownPrincipalError(`${name} is already a principal of the model`);
    const { account, partition } = this.values.env;
    const principal: IamPrincipal = {
      logicalId: name,
      kind: 'user',
      roleLogicalId: name,
      roleArn: `arn:${partition}:iam::${account}:user/${name}`,
      accessKeyId: accessKeyIdFor(name),
      policies: [{ name, source: 'user inline', document: policy }],
      unmodelledManagedPolicies: [],
    };
    this.principals.push(principal);
    this.byKey.set(principal.accessKeyId, principal);
    return principal.accessKeyId;
  }

  /** The principal a function's, state machine's or role's logical id names. */
  principal(logicalId: string): IamPrincipal {
    const found =
      this.principals.find((p) => p.logicalId === logicalId) ??
      this.principals.find((p) => p.roleLogicalId === logicalId);
    if (!found) throw new UnknownPrincipalError(`no function, state machine or role ${logicalId} in the template`);
    return found;
  }

  /** The principal whose rehearsal process signs with this access key id, if any. */
  byAccessKeyId(accessKeyId: string): IamPrincipal | undefined {
    return this.byKey.get(accessKeyId);
  }

  /** The role's inline and managed policies, every value resolved. */
  private rolePolicies(roleLogicalId: string): { policies: NamedPolicy[]; unmodelled: string[] } {
    const resources = this.values.template.Resources;
    const role = resources[roleLogicalId];
    if (role?.Type !== 'AWS::IAM::Role') throw new UnknownPrincipalError(`${roleLogicalId} is not an AWS::IAM::Role`);
    const policies: NamedPolicy[] = [];
    const resolve = (doc: unknown, path: string) => this.values.resolve(doc, path) as PolicyDocument;
    const attachedTo = (props: Record<string, unknown> | undefined) =>
      ((props?.Roles as unknown[] | undefined) ?? []).some((x) => (x as { Ref?: string }).Ref === roleLogicalId);
    const inline = (role.Properties?.Policies as Array<{ PolicyName: string; PolicyDocument: unknown }>) ?? [];
    inline.forEach((p, i) =>
      policies.push({
        name: p.PolicyName,
        source: 'AWS::IAM::Role.Policies',
        document: resolve(p.PolicyDocument, `$.Resources.${roleLogicalId}.Properties.Policies[${i}]`),
      }),
    );
    const managedInTemplate = new Map<string, string>();
    for (const [id, r] of Object.entries(resources)) {
      if (r.Type === 'AWS::IAM::ManagedPolicy') managedInTemplate.set(this.values.ref(id), id);
      if ((r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::IAM::ManagedPolicy') && attachedTo(r.Properties))
        policies.push({
          name: id,
          source: r.Type,
          document: resolve(r.Properties?.PolicyDocument, `$.Resources.${id}.Properties.PolicyDocument`),
        });
    }
    const unmodelled: string[] = [];
    const managed = (role.Properties?.ManagedPolicyArns as unknown[]) ?? [];
    managed.forEach((value, i) => {
      const arn = this.values.resolveString(value, `$.Resources.${roleLogicalId}.Properties.ManagedPolicyArns[${i}]`);
      const own = managedInTemplate.get(arn);
      if (own) {
        // Attached by ARN rather than by the policy's Roles: add it once.
        if (!policies.some((p) => p.name === own)) {
          const doc = resources[own].Properties?.PolicyDocument;
          policies.push({ name: own, source: 'AWS::IAM::ManagedPolicy', document: resolve(doc, `$.Resources.${own}`) });
        }
        return;
      }
      const awsManaged = /^arn:[a-z-]+:iam::aws:policy\/(.+)$/.exec(arn)?.[1];
      const known = awsManaged === undefined ? undefined : KNOWN_MANAGED_POLICIES[awsManaged];
      if (known) policies.push({ name: awsManaged!, source: 'AWS managed', document: known });
      else unmodelled.push(arn);
    });
    return { policies, unmodelled };
  }

  private tagged?: Map<string, Record<string, string>>;

  /**
   * The resource's tags as a request on it carries them (aws:ResourceTag/KEY). Given for every action: iam-simulate's
   * Strict mode drops a context key the Service Authorization Reference does not list for the action, as AWS would
   * not set it (s3:PutObject takes no aws:ResourceTag), so a policy conditioned on tags is held to where AWS
   * honours it.
   */
  private resourceTagContext(resource: string): Record<string, string> {
    this.tagged ??= this.values.taggedResources();
    const tags = this.tagged.get(resource) ?? {};
    return Object.fromEntries(Object.entries(tags).map(([k, v]) => [`aws:ResourceTag/${k}`, v]));
  }

  /** Whether the principal's role may call `action` on `resource`, as IAM decides it for a same-account request. */
  async authorize(request: AuthorizeRequest): Promise<Decision> {
    const p = this.principal(request.principal);
    const { action, resource } = request;
    const result = await runSimulation(
      {
        request: {
          principal: p.roleArn,
          action,
          resource: { resource, accountId: this.values.env.account },
          // AWS puts aws:username in every IAM user's request context (a policy may name it as ${aws:username})
          contextVariables: {
            ...this.resourceTagContext(resource),
            ...(p.kind === 'user' ? { 'aws:username': p.roleLogicalId } : {}),
            ...request.context,
          },
        },
        identityPolicies: p.policies.map((x) => ({ name: x.name, policy: x.document })),
        serviceControlPolicies: [],
        resourceControlPolicies: [],
      },
      { simulationMode: 'Strict' },
    );
    if (result.resultType === 'error')
      throw new SimulationInputError(`${p.logicalId} ${action} on ${resource}: ${result.errors.message}`);
    const allowed = result.overallResult === 'Allowed';
    const analyses = result.resultType === 'single' ? [result.result] : result.results;
    let explanation: string;
    if (allowed) {
      const grants = analyses.flatMap((a) => getGrantReasons(a.analysis));
      explanation =
        'allowed by ' +
        grants
          .map((g) => `${'policyIdentifier' in g ? g.policyIdentifier : g.policyType} statement ${g.statementIndex}`)
          .join(', ');
    } else {
      const explicit = analyses
        .flatMap((a) => getDenialReasons(a.analysis))
        .filter((d) => d.denialType === 'Explicit')
        .map((d) => `${d.policyIdentifier ?? d.policyType} statement ${d.statementIndex}`);
      explanation = explicit.length
        ? `explicitly denied by ${explicit.join(', ')}`
        : `no identity-based policy of ${p.kind === 'user' ? 'user' : 'role'} ${p.roleLogicalId} allows ${action} ` +
          `on ${resource}`;
      if (p.unmodelledManagedPolicies.length)
        explanation += ` (managed policies not modelled: ${p.unmodelledManagedPolicies.join(', ')})`;
    }
    return { allowed, principal: p.logicalId, action, resource, explanation };
  }
}
