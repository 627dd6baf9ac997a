// A first deploy whose migrations fail must leave nothing behind, and the next deploy must succeed (the deploy guide's
// promise): deployed with the Data API refusing every call, the stack rolls back to ROLLBACK_COMPLETE holding nothing;
// deleted and deployed again, it reaches CREATE_COMPLETE with the cluster protected. The template's old shape (the
// cluster created protected) must end ROLLBACK_FAILED with the cluster left, or the scenario proves nothing.
import type { Scenario } from './run-experiment.ts';
import { stackDeployments } from './stack-deploy.ts';
import type { World } from './world.ts';
import { RdsApiError, RdsSim } from '../simulators/rds-sim.ts';
import type { DeployTemplate, SimulatedStack } from '../simulators/cloudformation-deploy.ts';

const PROTECTION_TYPE = 'Custom::DeletionProtection';

/** What the scenario's deploys do not model, said in the rehearsal's output. */
export const FAILED_FIRST_DEPLOY_NOTES = [
  "failed-first-deploy: CloudFormation's resources other than the DB cluster and the custom resources are records, " +
    'created and deleted without their services; a wave of resources that CloudFormation would create in parallel ' +
    'is created one after another',
];

/** The template as it was: the cluster created protected, no protection resource. */
function createdProtected(template: DeployTemplate): DeployTemplate {
  const old = structuredClone(template);
  for (const [id, r] of Object.entries(old.Resources)) {
    if (r.Type === 'AWS::RDS::DBCluster') r.Properties = { ...r.Properties, DeletionProtection: true };
    if (r.Type === PROTECTION_TYPE) delete old.Resources[id];
  }
  return old;
}

/** The stack's events that failed, as CloudFormation's console lists them. */
const failures = (stack: SimulatedStack) =>
  stack.events
    .filter((e) => e.status.endsWith('_FAILED') && e.reason)
    .map((e) => `${e.logicalId} ${e.status}: ${e.reason}`)
    .join('; ');

/** Runs `deploy` while the Data API refuses every call, so the migrations custom resource fails. */
async function withMigrationsFailing<T>(world: World, deploy: () => Promise<T>): Promise<T> {
  world.dataApi.refuse({
    type: 'BadRequestException',
    message: `HttpEndpoint is not enabled for resource ${world.dataApi.clusterArn}`,
  });
  try {
    return await deploy();
  } finally {
    world.dataApi.refuse(null);
  }
}

export const failedFirstDeployScenario: Scenario = async (world) => {
  const template: DeployTemplate = world.model.values.template;
  const name = world.model.values.env.stackName;
  const clusterId = Object.entries(template.Resources).find(([, r]) => r.Type === 'AWS::RDS::DBCluster')?.[0];
  if (!clusterId) throw new Error('the template has no DB cluster');
  const identifier = world.model.values.ref(clusterId);

  // the bug, first: with the cluster created protected, the rollback cannot delete it
  const oldRds = new RdsSim();
  const old = await withMigrationsFailing(world, () =>
    stackDeployments(world, oldRds).createStack(name, createdProtected(template)),
  );
  const refused = old.events.find((e) => e.logicalId === clusterId && e.status === 'DELETE_FAILED');
  if (old.status !== 'ROLLBACK_FAILED' || !oldRds.clusters.has(identifier) || !refused)
    throw new Error(
      `the old template shape (cluster created protected) ended ${old.status} with ${oldRds.clusters.size} ` +
        'cluster(s) left: the scenario proves nothing',
    );

  const rds = world.sims.rds;
  const cfn = stackDeployments(world, rds);
  try {
    const first = await withMigrationsFailing(world, () => cfn.createStack(name, template));
    if (!first.events.some((e) => e.status === 'CREATE_FAILED' && e.reason?.includes('HttpEndpoint is not enabled')))
      throw new Error(`the first deploy did not fail at the migrations (${first.status}): ${failures(first)}`);
    if (first.status !== 'ROLLBACK_COMPLETE')
      throw new Error(`the failed first deploy ended ${first.status}, not ROLLBACK_COMPLETE: ${failures(first)}`);
    if (rds.clusters.size || cfn.account.size || first.resources.size)
      throw new Error(
        `the failed first deploy left ${rds.clusters.size} cluster(s) and ${cfn.account.size} resource(s): ` +
          [...cfn.account.values()].map((r) => `${r.type} ${r.physicalId}`).join(', '),
      );
    const deleted = await cfn.deleteStack(name);
    if (deleted.status !== 'DELETE_COMPLETE') throw new Error(`deleting the rolled-back stack ended ${deleted.status}`);
    const second = await cfn.createStack(name, template);
    if (second.status !== 'CREATE_COMPLETE')
      throw new Error(`the second deploy ended ${second.status}: ${failures(second)}`);
    const last = [...second.resources.values()].at(-1);
    if (last?.type !== PROTECTION_TYPE)
      throw new Error(`the last resource created was ${last?.type}, not the protection`);
    if (rds.clusters.get(identifier)?.deletionProtection !== true)
      throw new Error('the second deploy completed without protecting the cluster');
    try {
      rds.deleteCluster(identifier);
      throw new Error('the deployed cluster could be deleted');
    } catch (err) {
      if (!(err instanceof RdsApiError)) throw err;
    }
    return (
      `migrations failing (Data API refused): ROLLBACK_COMPLETE, nothing left (created protected: ` +
      `${old.status}, ${refused.reason}); deleted and deployed again: CREATE_COMPLETE, ` +
      `${second.resources.size} resources, the cluster protected by the last`
    );
  } finally {
    rds.clusters.clear();
  }
};
