// A deployed stack's outputs as the CLI and the rehearsal read them, and the OutputKey of each: defined beside the
// stack that writes them (lib/ariadne-stack.ts names its CfnOutputs from OUTPUT_KEYS), free of aws-cdk-lib so the
// CLI can load it without loading CDK.

/** What the CLI needs of a deployed stack: its CloudFormation outputs (lib/ariadne-stack.ts), typed. */
export interface StackOutputs {
  stackName: string;
  region: string;
  account: string;
  stateMachineArn: string;
  sweepStateMachineArn: string;
  sweepBucketName: string;
  databaseClusterArn: string;
  databaseSecretArn: string;
  /** The read-only role's secret: what every `--aws` results command and the researcher policy use. */
  databaseReaderSecretArn: string;
  databaseName: string;
  /** The Bedrock models and profiles the stack lets its agent call, comma-separated ("none" when it grants none). */
  bedrockModels: string;
}

export type OutputField = Exclude<keyof StackOutputs, 'stackName' | 'region' | 'account'>;

/** Each field's OutputKey, as lib/ariadne-stack.ts's CfnOutputs name them. */
export const OUTPUT_KEYS: Record<OutputField, string> = {
  stateMachineArn: 'StateMachineArn',
  sweepStateMachineArn: 'SweepStateMachineArn',
  sweepBucketName: 'SweepBucketName',
  databaseClusterArn: 'DatabaseClusterArn',
  databaseSecretArn: 'DatabaseSecretArn',
  databaseReaderSecretArn: 'DatabaseReaderSecretArn',
  databaseName: 'DatabaseName',
  bedrockModels: 'BedrockModels',
};

/** The deployed model ids of the BedrockModels output. */
export function deployedBedrockModels(outputs: Pick<StackOutputs, 'bedrockModels'>): string[] {
  return outputs.bedrockModels.split(',').filter((id) => id !== '' && id !== 'none');
}
