// One value of an experiment's stored config changed in place: a resumed run moved to another model host records
// the host that answered the rest of it.
import type { Sql } from './sql.ts';

/** Sets config at `path` (e.g. ['ollama', 'host']) to the string `value`. */
export async function setConfigValue(db: Sql, id: string, path: string[], value: string): Promise<void> {
  await db.query('UPDATE experiments SET config = jsonb_set(config, $2::text[], to_jsonb($3::text)) WHERE id = $1', [
    id,
    path,
    value,
  ]);
}
