// The simulators' authorization port: what an AWS simulator asks of whoever decides its requests (the rehearsal's
// IAM model implements it: rehearsal/authorizer.ts), and the denial replies in each wire protocol's own format. The
// simulators own it, so they depend on no rehearsal code; without an authorizer a simulator answers every signed
// request.
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** The wire protocols of the simulated services: SSM (JSON 1.1), Step Functions (JSON 1.0), Data API and Bedrock
 * Runtime (REST-JSON), S3 (REST-XML), CloudFormation (query: form-encoded requests, XML replies). */
export type AwsProtocol = 'json-1.0' | 'json-1.1' | 'rest-json' | 'rest-xml' | 'query';

/** One authorization a request needs (some need two: the Data API also reads the secret as the caller). */
export interface AwsCall {
  action: string;
  resource: string;
  context?: Record<string, string | string[]>;
}

/** What a server needs to build ARNs for the request: the signer's Region and the account of the fake stack. */
export interface RequestScope {
  accessKeyId: string;
  region: string;
  service: string;
  account: string;
  partition: string;
}

export interface DeniedReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Denial {
  principal: string;
  action: string;
  resource: string;
  explanation: string;
}

export type AuthorizationResult = { ok: true; principal: string } | { ok: false; reply: DeniedReply; denial: Denial };

/** GetCallerIdentity's answer for a signer the authorizer knows. */
export interface CallerIdentity {
  arn: string;
  accessKeyId: string;
}

/** One evaluation of IAM's policy simulator (SimulatePrincipalPolicy's EvalDecision). */
export type SimulatedDecision = 'allowed' | 'explicitDeny' | 'implicitDeny';

/** What the simulators need decided, per request or per call. */
export interface RequestAuthorization {
  /** The partition the simulated account's ARNs are in. */
  readonly partition: string;
  /**
   * Authorizes a request: `derive` turns the signer's scope into the calls AWS would authorize for it (none: the
   * server answers the request itself). A denial comes with the reply to send, in `protocol`'s format.
   */
  check(
    headers: IncomingHttpHeaders,
    protocol: AwsProtocol,
    derive: (scope: RequestScope) => AwsCall[],
  ): Promise<AuthorizationResult>;
  /** Whether the principal may make the call, without counting it (S3's NoSuchKey-or-403 choice). */
  allows(principal: string, call: AwsCall): Promise<boolean>;
  /** What bedrock:InvokeModel authorizes for a model id of a request path (profiles route to several Regions). */
  bedrockInvokeCalls(modelId: string, scope: RequestScope): AwsCall[];
  /** The caller's identity for GetCallerIdentity; undefined for a principal it does not know. */
  callerIdentity(principal: string): CallerIdentity | undefined;
  /** IAM's policy simulator over the principal whose ARN is `policySourceArn`; undefined: no such user or role. */
  simulate(policySourceArn: string, action: string, resource: string): Promise<SimulatedDecision | undefined>;
}

const requestId = () => randomBytes(16).toString('hex');

const xmlEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** An error's code per protocol family: the JSON protocols' type, S3's Code, a query protocol service's Code. */
interface ErrorCodes {
  json: string;
  s3: string;
  query: string;
}

function errorReply(protocol: AwsProtocol, codes: ErrorCodes, message: string): DeniedReply {
  const type = codes.json;
  const id = requestId();
  switch (protocol) {
    case 'json-1.0':
    case 'json-1.1':
      // The AWS JSON protocols carry the error type in the body's __type (HTTP 400).
      return {
        status: 400,
        headers: { 'content-type': `application/x-amz-json-${protocol.slice(5)}`, 'x-amzn-requestid': id },
        body: JSON.stringify({ __type: type, message }),
      };
    case 'rest-json':
      return {
        status: 403,
        headers: { 'content-type': 'application/json', 'x-amzn-errortype': type, 'x-amzn-requestid': id },
        body: JSON.stringify({ message }),
      };
    case 'rest-xml':
      return {
        status: 403,
        headers: { 'content-type': 'application/xml', 'x-amz-request-id': id },
        body:
          `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${codes.s3}</Code>` +
          `<Message>${xmlEscape(message)}</Message><RequestId>${id}</RequestId></Error>`,
      };
    case 'query':
      // <ErrorResponse><Error><Type>Sender</Type><Code>... with HTTP 403: CloudFormation's denial of DescribeStacks
      // reaches the JS SDK as AccessDenied, httpStatusCode 403 (github.com/anomalyco/sst/issues/3006); an unknown key
      // is InvalidClientTokenId, 403 ("Common Errors", CloudFormation API Reference).
      return queryErrorReply(403, codes.query, message, id);
  }
}

/** An error of a query protocol service: the Error element inside ErrorResponse (CloudFormation's namespace). */
export function queryErrorReply(status: number, code: string, message: string, id = requestId()): DeniedReply {
  return {
    status,
    headers: { 'content-type': 'text/xml', 'x-amzn-requestid': id },
    body:
      `<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type>` +
      `<Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error>` +
      `<RequestId>${id}</RequestId></ErrorResponse>`,
  };
}

/** AccessDeniedException (S3 and query protocol services: AccessDenied) in the protocol's format. */
export function accessDeniedReply(protocol: AwsProtocol, message: string): DeniedReply {
  return errorReply(protocol, { json: 'AccessDeniedException', s3: 'AccessDenied', query: 'AccessDenied' }, message);
}

/** A key AWS does not know: UnrecognizedClientException (S3: InvalidAccessKeyId; query: InvalidClientTokenId). */
export function invalidKeyReply(protocol: AwsProtocol): DeniedReply {
  return errorReply(
    protocol,
    { json: 'UnrecognizedClientException', s3: 'InvalidAccessKeyId', query: 'InvalidClientTokenId' },
    'The security token included in the request is invalid.',
  );
}
