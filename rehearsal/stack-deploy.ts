// The synthesized template deployed by the CloudFormation deploy simulator (simulators/cloudformation-deploy.ts),
// wired to the rehearsal's world: the DB cluster is created in an RDS simulator under the name the template's
// values give it (the name every function's environment and IAM policy resolve to), and each custom resource runs
// through CDK's Provider framework as the template wires it: our bundles, with their own roles, against the
// rehearsal's servers. Every other resource is recorded as existing.
import { randomUUID } from 'node:crypto';
import {
  rdsClusterProvisioner,
  StackDeployments,
  type Provisioner,
  type ProvisionRequest,
} from '../simulators/cloudformation-deploy.ts';
import type { RdsSim } from '../simulators/rds-sim.ts';
import { customResourceProvider, invokeCustomResource, type World } from './world.ts';

/** The rehearsal shortens the migrations' waits between polls as its other scenarios do (scenario-migrations.ts). */
const WAIT_SCALE = 1 / 25;

/** A custom resource whose provider is not CDK's Provider framework around functions of ours. */
class UnrehearsedProviderError extends Error {
  override readonly name = 'UnrehearsedProviderError';
}

/** Custom resources through CDK's Provider framework: the ServiceToken names the framework's onEvent function. */
function customResources(world: World): Provisioner {
  const { values } = world.model;
  const request = (r: ProvisionRequest, type: 'Create' | 'Delete', physicalId?: string) => {
    const token = r.properties.ServiceToken as { 'Fn::GetAtt'?: [string, string] } | undefined;
    const framework = token?.['Fn::GetAtt']?.[0];
    if (!framework) throw new UnrehearsedProviderError(`${r.logicalId}: its ServiceToken is no function's Arn`);
    const event = {
      RequestType: type,
      ...(physicalId === undefined ? {} : { PhysicalResourceId: physicalId }),
      StackId: values.ref('AWS::StackId'),
      RequestId: randomUUID(),
      LogicalResourceId: r.logicalId,
      ResourceType: r.type,
      ResourceProperties: values.resolve(r.properties, `$.Resources.${r.logicalId}.Properties`),
    };
    return { provider: customResourceProvider(world, framework), event };
  };
  return {
    async create(r) {
      const { provider, event } = request(r, 'Create');
      const { answer } = await invokeCustomResource(provider, event, { waitScale: WAIT_SCALE, what: r.logicalId });
      // the framework's default physical id is the request's
      return answer.PhysicalResourceId ?? event.RequestId;
    },
    async delete(r) {
      const { provider, event } = request(r, 'Delete', r.physicalId);
      await invokeCustomResource(provider, event, { waitScale: WAIT_SCALE, what: r.logicalId });
    },
  };
}

/** A deploy simulator over the world's functions, creating clusters in `rds`. */
export function stackDeployments(world: World, rds: RdsSim): StackDeployments {
  return new StackDeployments({
    'AWS::RDS::DBCluster': rdsClusterProvisioner(rds, (id) => world.model.values.ref(id, `$.Resources.${id}`)),
    'AWS::CloudFormation::CustomResource': customResources(world),
  });
}
