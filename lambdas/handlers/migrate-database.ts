// CloudFormation custom resource: applies migrations/ at deploy (create and
// update), before any experiment can start. Deleting the stack keeps the data.
import { openDatabase } from '../store/database.ts';
import { databaseUrlFromEnvironment } from './deps.ts';

interface CustomResourceEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  PhysicalResourceId?: string;
}

export const handler = async (
  event: CustomResourceEvent,
): Promise<{ PhysicalResourceId: string; Data?: Record<string, string> }> => {
  const PhysicalResourceId = event.PhysicalResourceId ?? 'ariadne-migrations';
  if (event.RequestType === 'Delete') return { PhysicalResourceId };
  const db = await openDatabase({
    url: await databaseUrlFromEnvironment(),
    poolSize: 1,
    schema: process.env.DATABASE_SCHEMA,
  });
  try {
    const { rows } = await db.pool.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version');
    return { PhysicalResourceId, Data: { Applied: rows.map((r) => r.name).join(',') } };
  } finally {
    await db.close();
  }
};
