// The stack as a researcher's laptop finds it: the synthesized template's outputs, resolved for the
// rehearsal's fake account, served by the CloudFormation simulator as DescribeStacks would return them. Shared by
// the rehearsal's researcher scenario and the tests' deployed-stack harness.
import { OUTPUT_KEYS, type StackOutputs } from '../lib/stack-outputs.ts';
import { CloudFormationSim } from '../simulators/cloudformation-sim.ts';
import type { IamModel } from './iam.ts';
import type { RequestAuthorizer } from './authorizer.ts';

/** The stack's outputs as DescribeStacks would return them from the rehearsal's fake account. */
export function stackOutputsOf(model: IamModel): StackOutputs {
  const { values } = model;
  const { template } = values;
  return {
    stackName: values.env.stackName,
    region: values.env.region,
    account: values.env.account,
    ...Object.fromEntries(
      Object.entries(OUTPUT_KEYS).map(([field, key]) => [
        field,
        values.resolveString(template.Outputs?.[key]?.Value, `$.Outputs.${key}`),
      ]),
    ),
  } as StackOutputs;
}

/** A CloudFormation server with the one stack these outputs describe, every DescribeStacks authorized. */
export function stackServer(outputs: StackOutputs, authorizer: RequestAuthorizer): CloudFormationSim {
  return new CloudFormationSim(
    [
      {
        name: outputs.stackName,
        id: `arn:aws:cloudformation:${outputs.region}:${outputs.account}:stack/${outputs.stackName}/sim-0001`,
        status: 'UPDATE_COMPLETE',
        outputs: Object.fromEntries(
          Object.entries(OUTPUT_KEYS).map(([field, key]) => [key, outputs[field as keyof typeof OUTPUT_KEYS]]),
        ),
      },
    ],
    { authorizer },
  );
}

/**
 * The environment a CLI process needs to reach the stack's servers as the user whose access key it signs with:
 * no DATABASE_URL (--aws reads AWS), no profile or session token of this machine's own.
 */
export function researcherEnv(
  outputs: StackOutputs,
  accessKeyId: string,
  secretAccessKey: string,
  endpoints: Record<string, string>,
): Record<string, string | undefined> {
  return {
    DATABASE_URL: undefined,
    DATABASE_SCHEMA: undefined,
    AWS_REGION: outputs.region,
    AWS_ACCESS_KEY_ID: accessKeyId,
    AWS_SECRET_ACCESS_KEY: secretAccessKey,
    AWS_SESSION_TOKEN: undefined,
    AWS_PROFILE: undefined,
    ...endpoints,
  };
}
