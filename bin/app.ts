// CDK app entry (cdk.json "app").
import { App } from 'aws-cdk-lib';
import { AriadneStack } from '../lib/ariadne-stack.ts';

const app = new App();
// cdk deploy -c vpcId=vpc-0123... deploys into an existing VPC (a lookup: needs credentials at synth).
const vpcId = app.node.tryGetContext('vpcId') as string | undefined;
new AriadneStack(app, 'Ariadne', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  vpcId,
});
