// A local server speaking the query protocol of the two identity calls `ariadne doctor --aws` makes, so they are
// tested through the real @aws-sdk/client-sts and client-iam: STS GetCallerIdentity (needs no permission) and IAM
// SimulatePrincipalPolicy (iam:SimulatePrincipalPolicy on the PolicySourceArn; an unknown source is NoSuchEntity).
// Each operation answers only on its own service's endpoint (the SigV4 credential scope names it), as two AWS
// endpoints would; decisions come from the rehearsal's IamModel.
import { randomUUID } from 'node:crypto';
import { queryErrorReply, type AwsCall, type RequestAuthorization } from './authorization.ts';
import { AwsQueryServer, type QueryReply } from './aws-query-server.ts';

const STS_NAMESPACE = 'https://sts.amazonaws.com/doc/2011-06-15/';
const IAM_NAMESPACE = 'https://iam.amazonaws.com/doc/2010-05-08/';

const xmlEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const element = (name: string, value: string) => `<${name}>${xmlEscape(value)}</${name}>`;

/** The members of a query-protocol list parameter: Name.member.1, Name.member.2, ... in order. */
function listParam(params: Record<string, string>, name: string): string[] {
  const out: string[] = [];
  for (let i = 1; params[`${name}.member.${i}`] !== undefined; i++) out.push(params[`${name}.member.${i}`]);
  return out;
}

export class IdentitySim extends AwsQueryServer {
  /**
   * `authorizer`: the rehearsal's IAM model, whose principals are the callers and the identities simulated.
   * Without one, every caller is `anonymousCaller` and no policy is known, so SimulatePrincipalPolicy is refused
   * (AccessDenied) rather than answered with a decision nobody evaluated.
   */
  constructor(
    authorizer?: RequestAuthorization,
    private readonly anonymousCaller = 'arn:aws:iam::123456789012:user/researcher',
  ) {
    super(authorizer);
  }

  /** What AWS authorizes for the request; GetCallerIdentity needs no permission. */
  protected calls(params: Record<string, string>): AwsCall[] {
    if (params.Action !== 'SimulatePrincipalPolicy' || !params.PolicySourceArn) return [];
    return [{ action: 'iam:SimulatePrincipalPolicy', resource: params.PolicySourceArn }];
  }

  protected async answer(
    params: Record<string, string>,
    caller: string | undefined,
    service: string | undefined,
  ): Promise<QueryReply> {
    const reply = (xml: string) => ({ status: 200, headers: { 'content-type': 'text/xml' }, body: xml });
    const wrap = (ns: string, action: string, result: string) =>
      reply(
        `<${action}Response xmlns="${ns}"><${action}Result>${result}</${action}Result>` +
          `<ResponseMetadata>${element('RequestId', randomUUID())}</ResponseMetadata></${action}Response>`,
      );
    if (service === 'sts' && params.Action === 'GetCallerIdentity') {
      const p = this.authorizer && caller ? this.authorizer.callerIdentity(caller) : undefined;
      const arn = p ? p.arn : this.anonymousCaller;
      return wrap(
        STS_NAMESPACE,
        'GetCallerIdentity',
        element('Arn', arn) +
          element('UserId', `AIDA${(p?.accessKeyId ?? 'AKIAANONYMOUS').slice(4)}`) +
          element('Account', arn.split(':')[4]),
      );
    }
    if (service === 'iam' && params.Action === 'SimulatePrincipalPolicy') {
      if (!this.authorizer)
        return queryErrorReply(
          403,
          'AccessDenied',
          `User: ${this.anonymousCaller} is not authorized to perform: iam:SimulatePrincipalPolicy ` +
            '(this server was given no IAM policies to simulate)',
        );
      const authorizer = this.authorizer;
      const actions = listParam(params, 'ActionNames');
      const resources = listParam(params, 'ResourceArns');
      if (!params.PolicySourceArn || actions.length === 0)
        return queryErrorReply(400, 'ValidationError', 'PolicySourceArn and ActionNames are required');
      const notFound = () =>
        queryErrorReply(
          404,
          'NoSuchEntity',
          `The user, group or role with name ${params.PolicySourceArn.split('/').pop()} cannot be found.`,
        );
      const members: string[] = [];
      for (const action of actions)
        for (const resource of resources.length ? resources : ['*']) {
          const decision = await authorizer.simulate(params.PolicySourceArn, action, resource);
          if (!decision) return notFound();
          members.push(
            `<member>${element('EvalActionName', action)}${element('EvalResourceName', resource)}` +
              `${element('EvalDecision', decision)}</member>`,
          );
        }
      return wrap(
        IAM_NAMESPACE,
        'SimulatePrincipalPolicy',
        `<EvaluationResults>${members.join('')}</EvaluationResults><IsTruncated>false</IsTruncated>`,
      );
    }
    return queryErrorReply(400, 'InvalidAction', `Could not find operation ${params.Action} on ${service}`);
  }
}
