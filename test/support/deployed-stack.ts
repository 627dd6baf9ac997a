// A deployed stack as a researcher's laptop sees it, for the `--aws` commands: the synthesized template's
// outputs (resolved for the rehearsal's fake account) served by the CloudFormation simulator, the stack's Aurora by
// the RDS Data API server in front of a test schema, its parameters by the SSM server, and every request authorized
// by the rehearsal's IAM evaluator against the policy `ariadne policy researcher` generates, given to a user whose
// access key the CLI signs with. Denials are counted: the commands must need nothing the policy does not grant.
import { randomBytes } from 'node:crypto';
import type { StackOutputs } from '../../lib/stack-outputs.ts';
import { grantReader } from '../../core/store/reader-role.ts';
import { researcherPolicy } from '../../lib/researcher-policy.ts';
import { IamModel, accessKeyIdFor } from '../../rehearsal/iam.ts';
import { RequestAuthorizer } from '../../rehearsal/authorizer.ts';
import { researcherEnv, stackOutputsOf, stackServer } from '../../rehearsal/stack-outputs.ts';
import { RdsDataSim } from '../../simulators/rds-data-sim.ts';
import { SsmSim } from '../../simulators/ssm-sim.ts';
import { SfnSim } from '../../simulators/sfn-sim.ts';
import { IdentitySim } from '../../simulators/identity-sim.ts';
import { BedrockSim } from '../../simulators/bedrock-sim.ts';
import { ServiceQuotasSim } from '../../simulators/service-quotas-sim.ts';
import { DEFAULT_BEDROCK_MODELS } from '../../lib/ariadne-stack.ts';
import { sharedAssembly } from './assembly.ts';
import type { TestDatabase } from './db.ts';

export interface DeployedStack {
  outputs: StackOutputs;
  authorizer: RequestAuthorizer;
  data: RdsDataSim;
  /** The stack's Step Functions (start executions on it to see them listed as running). */
  sfn: SfnSim;
  /** Its parameters (change one to see the commands read it). */
  ssm: SsmSim;
  /** Bedrock as the researcher reaches it (its models and their lifecycles can be changed). */
  bedrock: BedrockSim;
  /** The environment a CLI process needs to reach it as the researcher (no DATABASE_URL: --aws reads AWS). */
  env: Record<string, string | undefined>;
  /** The same, as a researcher given `ariadne policy researcher --bedrock` (for doctor --bedrock). */
  modelResearcherEnv: Record<string, string | undefined>;
  /** As a researcher given `--bedrock` for a stack deployed with these models (its BedrockModels output). */
  modelResearcherFor(models: string[]): Record<string, string | undefined>;
  close(): Promise<void>;
}

export async function deployedStack(db: TestDatabase): Promise<DeployedStack> {
  const model = new IamModel((await sharedAssembly()).template);
  const { values } = model;
  const outputs = stackOutputsOf(model);
  const researcher = 'Researcher';
  model.addPrincipal(researcher, researcherPolicy(outputs));
  const modelResearcher = 'ModelResearcher';
  model.addPrincipal(modelResearcher, researcherPolicy(outputs, { bedrock: true }));
  const authorizer = new RequestAuthorizer(model);
  const cfn = stackServer(outputs, authorizer);
  // the researchers' read-only role, as the migrations make it on AWS: the --aws commands read as it
  const reader = { username: `${db.schema}_reader`.slice(0, 63), password: randomBytes(18).toString('hex') };
  await db.transaction((tx) => grantReader(tx, reader));
  const data = new RdsDataSim({
    url: db.url,
    schema: db.schema,
    clusterArn: outputs.databaseClusterArn,
    secretArn: outputs.databaseSecretArn,
    otherSecrets: (arn) => (arn === outputs.databaseReaderSecretArn ? reader : undefined),
    database: outputs.databaseName,
    authorizer,
  });
  // the stack's parameters, as the template writes them
  const ssm = new SsmSim(
    Object.entries(model.values.template.Resources)
      .filter(([, r]) => r.Type === 'AWS::SSM::Parameter')
      .map(([id, r]) => ({
        name: values.resolveString(r.Properties!.Name, `$.Resources.${id}.Properties.Name`),
        value: values.resolveString(r.Properties!.Value, `$.Resources.${id}.Properties.Value`),
        type: r.Properties!.Type as 'String',
      })),
    { authorizer },
  );
  const sfn = new SfnSim({ authorizer });
  const identity = new IdentitySim(authorizer);
  const identityUrl = await identity.listen();
  const bedrock = new BedrockSim({ authorizer, models: DEFAULT_BEDROCK_MODELS });
  const bedrockUrl = await bedrock.listen();
  // Bedrock's quotas (doctor --bedrock prints them), each read authorized as the caller
  const serviceQuotas = new ServiceQuotasSim(undefined, { authorizer });
  const env = researcherEnv(outputs, accessKeyIdFor(researcher), 'researcher-secret', {
    AWS_ENDPOINT_URL_CLOUDFORMATION: await cfn.listen(),
    AWS_ENDPOINT_URL_RDS_DATA: await data.listen(),
    AWS_ENDPOINT_URL_SSM: await ssm.listen(),
    AWS_ENDPOINT_URL_SFN: await sfn.listen(),
    AWS_ENDPOINT_URL_STS: identityUrl,
    AWS_ENDPOINT_URL_IAM: identityUrl,
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrockUrl,
    // the control plane (GetFoundationModel): the simulator's second, HTTP/1.1 port
    AWS_ENDPOINT_URL_BEDROCK: bedrock.controlPlaneUrl,
    AWS_ENDPOINT_URL_SERVICE_QUOTAS: await serviceQuotas.listen(),
  });
  return {
    outputs,
    authorizer,
    data,
    sfn,
    ssm,
    bedrock,
    env,
    modelResearcherEnv: { ...env, AWS_ACCESS_KEY_ID: accessKeyIdFor(modelResearcher) },
    modelResearcherFor(models) {
      const name = `ModelResearcher${models.length}x${models.join('').length}`;
      const policy = researcherPolicy({ ...outputs, bedrockModels: models.join(',') }, { bedrock: true });
      return { ...env, AWS_ACCESS_KEY_ID: model.addPrincipal(name, policy) };
    },
    async close() {
      await identity.close();
      await bedrock.close();
      await serviceQuotas.close();
      await cfn.close();
      await data.close();
      await db.pool.query(`DROP OWNED BY ${reader.username}`);
      await db.pool.query(`DROP ROLE ${reader.username}`);
      await ssm.close();
      await sfn.close();
    },
  };
}
