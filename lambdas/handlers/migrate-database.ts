// CloudFormation custom resource: applies migrations/ at deploy (create and
// update), before any experiment can start, through the same transport as
// every function (the Data API on AWS). Deleting the stack keeps the data.
import { migrate } from '../store/migrate.ts';
import { databaseFromEnvironment } from './deps.ts';

interface CustomResourceEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  PhysicalResourceId?: string;
}

export const handler = async (
  event: CustomResourceEvent,
): Promise<{ PhysicalResourceId: string; Data?: Record<string, string> }> => {
  const PhysicalResourceId = event.PhysicalResourceId ?? 'ariadne-migrations';
  if (event.RequestType === 'Delete') return { PhysicalResourceId };
  const db = await databaseFromEnvironment(process.env, { poolSize: 1 });
  try {
    await migrate(db, { schema: process.env.DATABASE_SCHEMA });
    const { rows } = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version');
    return { PhysicalResourceId, Data: { Applied: rows.map((r) => r.name).join(',') } };
  } finally {
    await db.close();
  }
};
