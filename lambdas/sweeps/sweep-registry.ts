// A sweep and its cells in the database, written once before any run, the
// same from a laptop and from the AWS sweep machine's RegisterSweep Lambda.
import { InvalidInputError } from '../engine/errors.ts';
import { jsonbBytes, refuseOver, textBytes } from '../engine/stored-limits.ts';
import type { LoadedSweep } from './sweep-spec.ts';
import type { Sql } from '../store/sql.ts';

/** Writes the sweep and its cells once; a name reused for a different spec is refused. */
export async function registerSweep(db: Sql, s: LoadedSweep): Promise<void> {
  // the file and its parsed form are kept whole, in a row the Data API must read back (64 KB): a larger one is refused
  const fix = `split sweep "${s.spec.sweep}" into smaller sweeps (fewer agents, mazes or settings per file)`;
  refuseOver('sweeps.spec_text', textBytes(s.text), fix);
  refuseOver('sweeps.spec', jsonbBytes(s.spec), fix);
  const { rows } = await db.query<{ spec_hash: string }>(
    `INSERT INTO sweeps (id, spec, spec_hash, spec_text, cells, repeats) VALUES ($1, $2::jsonb, $3, $4, $5, $6)
     ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id RETURNING spec_hash`,
    [s.spec.sweep, JSON.stringify(s.spec), s.hash, s.text, s.cells.length, s.spec.repeats],
  );
  if (rows[0].spec_hash !== s.hash) {
    throw new InvalidInputError(
      'sweep',
      s.spec.sweep,
      `sweep "${s.spec.sweep}" already exists with a different spec; ` +
        'a sweep name keeps its meaning: give the changed sweep a new name',
    );
  }
  await db.query(
    `INSERT INTO sweep_cells (sweep_id, cell_index, cell_key, label, agent, model, maze_generator, maze_size, maze_seed,
                             settings)
     SELECT $1, c.i, c.k, c.l, c.a, c.m, c.g, c.s, c.d, c.x FROM jsonb_to_recordset($2::jsonb)
       AS c(i int, k text, l text, a text, m text, g text, s int, d bigint, x jsonb)
     ON CONFLICT DO NOTHING`,
    [
      s.spec.sweep,
      JSON.stringify(
        s.cells.map((c) => ({
          i: c.index,
          k: c.key,
          l: c.label,
          a: c.agent,
          m: c.model,
          g: c.generator,
          s: c.size,
          d: c.seed,
          x: c.settings,
        })),
      ),
    ],
  );
}
