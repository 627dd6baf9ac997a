// CDK app entry (cdk.json "app").
import { App } from 'aws-cdk-lib';
import { AriadneStack } from '../lib/ariadne-stack.ts';

const app = new App();
new AriadneStack(app, 'Ariadne', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
