// CDK app entry (cdk.json "app").
import { App } from 'aws-cdk-lib';
import { AriadneStack } from '../lib/ariadne-stack.ts';

const app = new App();
// cdk deploy -c vpcId=vpc-0123... deploys into an existing VPC (a lookup: needs credentials at synth).
// -c executionTimeoutMinutes=240 raises the hard limit of one execution (default 180).
const vpcId = app.node.tryGetContext('vpcId') as string | undefined;
// -c parametersKmsKeyArn=arn:aws:kms:...:key/... when the SecureStrings use a customer managed key.
const parametersKmsKeyArn = app.node.tryGetContext('parametersKmsKeyArn') as string | undefined;
const timeout = app.node.tryGetContext('executionTimeoutMinutes') as string | number | undefined;
if (timeout !== undefined && !(Number(timeout) >= 1 && Number(timeout) <= 525_600)) {
  throw new Error(
    'context executionTimeoutMinutes must be a number of minutes from 1 to 525600 (a year), ' +
      `got ${JSON.stringify(timeout)}`,
  );
}
new AriadneStack(app, 'Ariadne', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  vpcId,
  parametersKmsKeyArn,
  executionTimeoutMinutes: timeout === undefined ? undefined : Number(timeout),
});
