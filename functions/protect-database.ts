// CloudFormation custom resource (CDK's Provider framework, lib/database.ts): turns the cluster's deletion protection
// on once everything else exists. The cluster is created unprotected so a failed first deploy rolls back clean: RDS
// refuses to delete a protected cluster (aws-facts: rds.delete-protected-cluster), which left it and its network
// behind in ROLLBACK_FAILED. Create and Update protect (an update may send DeletionProtection false); Delete leaves the
// cluster to its DeletionPolicy.
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
