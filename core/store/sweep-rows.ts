// What a sweep's growth reads of the sweep as registered (core/sweeps/sweep-registry.ts): its stored spec and
// hash, and its cells' indices by key. The store's own reads, as the engine's are (the read model is results/).
import type { Sql } from './sql.ts';

export interface StoredSweep<Spec> {
  spec: Spec;
  spec_hash: string;
}

/** The sweep's stored spec and hash. */
export async function storedSweep<Spec>(db: Sql, sweepId: string): Promise<StoredSweep<Spec>> {
  const { rows } = await db.query<StoredSweep<Spec>>('SELECT spec, spec_hash FROM sweeps WHERE id = $1', [sweepId]);
  return rows[0];
}

/** The sweep's registered cells: index by cell key. */
export async function registeredCells(db: Sql, sweepId: string): Promise<Map<string, number>> {
  const { rows } = await db.query<{ cell_index: number; cell_key: string }>(
    'SELECT cell_index, cell_key FROM sweep_cells WHERE sweep_id = $1',
    [sweepId],
  );
  return new Map(rows.map((c) => [c.cell_key, c.cell_index]));
}
