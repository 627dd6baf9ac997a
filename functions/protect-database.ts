// CloudFormation custom resource (CDK's Provider framework, lib/database.ts): turns the cluster's deletion protection
// on once everything else of the stack exists. The cluster is created unprotected, so a first deploy that fails rolls
// back clean: RDS refuses to delete a protected cluster ("Cannot delete protected Cluster, please disable deletion
// protection and try again.", Aurora User Guide, aurora-serverless.delete.html), which left the first deploy's cluster,
// subnet group, security group and VPC behind in ROLLBACK_FAILED. Create and Update protect (an update that touched
// the cluster sent the template's DeletionProtection false with it); Delete leaves the cluster as it is, kept or not
// by its DeletionPolicy.
import { ModifyDBClusterCommand, RDSClient } from '@aws-sdk/client-rds';

interface ProtectEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  PhysicalResourceId?: string;
  ResourceProperties: { ClusterIdentifier: string };
}

/** The event has no cluster to protect: the template's properties are not this resource's. */
export class ProtectEventError extends Error {
  override readonly name = 'ProtectEventError';
}

/** The handler over an RDS client (its Region: the function's). */
export function protectDatabaseHandler(
  client: RDSClient,
): (event: ProtectEvent) => Promise<{ PhysicalResourceId: string }> {
  return async (event) => {
    const cluster = event.ResourceProperties?.ClusterIdentifier;
    if (typeof cluster !== 'string' || cluster === '')
      throw new ProtectEventError('the custom resource has no ClusterIdentifier property');
    if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId ?? cluster };
    await client.send(
      new ModifyDBClusterCommand({ DBClusterIdentifier: cluster, DeletionProtection: true, ApplyImmediately: true }),
    );
    return { PhysicalResourceId: cluster };
  };
}

let client: RDSClient | undefined;

export const handler = (event: ProtectEvent): Promise<{ PhysicalResourceId: string }> =>
  protectDatabaseHandler((client ??= new RDSClient({ maxAttempts: 4 })))(event);
