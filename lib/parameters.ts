// Parameter Store defaults under one prefix, created by the stack: every
// experiment config default and the built-in prompt versions. The API keys are
// SecureStrings the admin puts beside the prefix, under <prefix>-secrets/
// (`ariadne secret set`; CloudFormation cannot create SecureStrings), each read
// by the one function that sends it (core/config/secrets.ts says why).
import { ArnFormat, Stack } from 'aws-cdk-lib';
import { PolicyStatement, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { StringListParameter, StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { DEFAULT_CONFIG } from '../core/config/experiment-config.ts';
import { PROMPTS } from '../core/config/prompts.ts';
import { fact } from '../aws-facts/facts.ts';
import { secretParameterName, type SecretName } from '../core/config/secrets.ts';

const TABLES_BY_MODEL = new Set(['prices', 'rate_limits', 'context_windows']);

/**
 * How many parameters CloudFormation may create at once: they are made in this many chains (DependsOn), so no more
 * than this many PutParameter calls are ever in flight. "Parameter Store throughput defines the number of API
 * transactions per second (TPS) that Systems Manager can process for GetParameter, GetParameters, and PutParameter
 * API calls for your AWS account and Region" (Systems Manager User Guide, parameter-store-throughput.html), and the
 * account's other users share it. 3 is PutParameter's standard throughput as AWS Support gave it
 * (philips-labs/terraform-aws-github-runner issue 2944: "the TPS for PutParameter Action is only 3 TPS with standard
 * throughput"); AWS's quotas page (general/latest/gr/ssm.html) was not in the corpus searched, so check it there.
 * Each creation takes CloudFormation over a second, so 3 chains stay under 3 calls a second; deleting the stack
 * follows the same chains backwards. The 43 parameters take 15 creations in a row.
 */
export const PARAMETER_CHAINS = fact('ssm.put-parameter-tps').value;

/** The parameters the stack creates: name -> value, from the code's defaults (nested sections one level down). */
function defaultParameters(prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(DEFAULT_CONFIG)) {
    // derived from max_moves when not set: a published default would pin it and refuse a larger max_moves
    if (key === 'max_turns') continue;
    // derived from the observation format (off under full_map and adjacency): a published true would refuse their runs
    if (key === 'recall_tool') continue;
    // a default, not a choice: published, it would be a setting that every model refusing sampling parameters (the
    // default Bedrock models among them) is refused at start for; unset, such a model is simply not sent it
    if (key === 'temperature') continue;
    // tables keyed by model id are one JSON parameter each: a model id's ':' may not appear in a parameter name
    if (TABLES_BY_MODEL.has(key)) out[`${prefix}/config/${key}`] = JSON.stringify(value);
    else if (value && typeof value === 'object')
      for (const [sub, v] of Object.entries(value)) out[`${prefix}/config/${key}/${sub}`] = String(v);
    else out[`${prefix}/config/${key}`] = String(value);
  }
  for (const [version, text] of Object.entries(PROMPTS)) out[`${prefix}/prompts/maze/${version}`] = text;
  return out;
}

export class AriadneParameters extends Construct {
  constructor(
    scope: Construct,
    id: string,
    readonly prefix: string,
    /** The Bedrock models the stack grants its agent: written for `ariadne doctor --aws --bedrock` to try. */
    bedrockModels: readonly string[],
    /** The customer managed KMS key of the SecureStrings under <prefix>-secrets, if not the AWS managed aws/ssm. */
    private readonly secretsKeyArn?: string,
  ) {
    super(scope, id);
    const defaults = { ...defaultParameters(prefix), [`${prefix}/config/bedrock/region`]: Stack.of(this).region };
    const made: Construct[] = Object.entries(defaults).map(
      ([name, value], i) =>
        new StringParameter(this, `P${i}`, {
          parameterName: name,
          stringValue: value,
          description: 'Ariadne default; edit to change new experiments (running ones keep their snapshot)',
        }),
    );
    // A fact of the deployment, not a setting: editing it grants nothing (the grant is -c bedrockModelIds).
    // None granted, none written (a parameter's value cannot be empty).
    if (bedrockModels.length > 0)
      made.push(
        new StringListParameter(this, 'BedrockModels', {
          parameterName: `${prefix}/deployment/bedrock_models`,
          stringListValue: [...bedrockModels],
          description: 'The Bedrock models this deployment lets its agent call (cdk deploy -c bedrockModelIds=...)',
        }),
      );
    // Parameter i waits for parameter i - PARAMETER_CHAINS: PARAMETER_CHAINS chains, each one creation at a time.
    made.forEach((parameter, i) => {
      if (i >= PARAMETER_CHAINS) parameter.node.addDependency(made[i - PARAMETER_CHAINS]);
    });
  }

  /** A parameter's ARN from its name (/a/b -> arn:...:parameter/a/b). */
  private parameterArn(name: string): string {
    return Stack.of(this).formatArn({
      service: 'ssm',
      resource: 'parameter',
      resourceName: name.replace(/^\//, ''),
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
  }

  /** The settings: the prefix's path and what is under it, read without decryption (no setting is secret). */
  grantRead(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['ssm:GetParametersByPath'],
        resources: [this.parameterArn(this.prefix), this.parameterArn(`${this.prefix}/*`)],
      }),
    );
  }

  /** One API key, by its own name, and (with a customer managed key) its decryption through SSM only. */
  grantSecret(grantee: IGrantable, name: SecretName): void {
    const stack = Stack.of(this);
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['ssm:GetParameter'],
        resources: [this.parameterArn(secretParameterName(this.prefix, name))],
      }),
    );
    // The AWS managed key aws/ssm (what `put-parameter --type SecureString` uses by default) lets every principal of
    // the account decrypt through SSM, so what keeps a key to its function is that no one else may get the
    // parameter; KMS never authorizes by an alias ARN ("Specifying KMS keys in IAM policy statements", AWS KMS
    // Developer Guide): only a customer managed key needs a grant, on its key ARN.
    if (this.secretsKeyArn)
      grantee.grantPrincipal.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['kms:Decrypt'],
          resources: [this.secretsKeyArn],
          conditions: { StringEquals: { 'kms:ViaService': `ssm.${stack.region}.amazonaws.com` } },
        }),
      );
  }
}
