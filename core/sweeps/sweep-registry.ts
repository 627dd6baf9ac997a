// A sweep and its cells in the database, written once before any run, the
// same from a laptop and from the AWS sweep machine's RegisterSweep Lambda.
import { InvalidInputError } from '../errors.ts';
import { jsonbBytes, refuseOver, textBytes } from '../store/stored-limits.ts';
import type { LoadedSweep } from './sweep-spec.ts';
import { notGrowth, reindexed } from './sweep-growth.ts';
import { registeredCells, storedSweep } from '../store/sweep-rows.ts';
import type { Sql } from '../store/sql.ts';

/**
 * Writes the sweep and its cells once. A name reused for a spec that only adds to it (sweep-growth.ts) grows the
 * sweep: the new cells registered after the old, the spec replaced and its earlier version kept in `grown`; the sweep
 * as registered is returned, its cells at their registered indices. Any other change is refused. `growth: false`
 * (AWS: the run list is uploaded before the sweep is registered) refuses every change.
 */
export async function registerSweep(db: Sql, s: LoadedSweep, opts: { growth?: boolean } = {}): Promise<LoadedSweep> {
  // the file and its parsed form are kept whole, in a row the Data API must read back (64 KB): a larger one is refused
  const fix = `split sweep "${s.spec.sweep}" into smaller sweeps (fewer agents, mazes or settings per file)`;
  refuseOver('sweeps.spec_text', textBytes(s.text), fix);
  refuseOver('sweeps.spec', jsonbBytes(s.spec), fix);
  const { rows } = await db.query<{ spec_hash: string }>(
    `INSERT INTO sweeps (id, spec, spec_hash, spec_text, cells, repeats) VALUES ($1, $2::jsonb, $3, $4, $5, $6)
     ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id RETURNING spec_hash`,
    [s.spec.sweep, JSON.stringify(s.spec), s.hash, s.text, s.cells.length, s.spec.repeats],
  );
  let registered = s;
  if (rows[0].spec_hash !== s.hash) registered = await grow(db, s, opts.growth ?? true);
  await insertCells(db, registered);
  return registered;
}

/** The sweep grown: its new spec checked against the stored one, its cells reindexed, its row replaced. */
async function grow(db: Sql, s: LoadedSweep, allowed: boolean): Promise<LoadedSweep> {
  const refuse = (what: string) =>
    new InvalidInputError(
      'sweep',
      s.spec.sweep,
      `sweep "${s.spec.sweep}" already exists with a different spec (${what}); a sweep name keeps its meaning: ` +
        (allowed
          ? 'it may grow (more agents, generators, sizes, seeds, setting values or repeats), nothing else: give ' +
            'the changed sweep a new name'
          : 'on AWS it does not grow (its run list is uploaded before it is registered): grow it locally, or give ' +
            'the changed sweep a new name'),
    );
  const stored = await storedSweep<LoadedSweep['spec']>(db, s.spec.sweep);
  const changed = notGrowth(stored.spec, s.spec);
  if (changed !== null || !allowed) throw refuse(changed ?? 'grown');
  const registered = reindexed(s, await registeredCells(db, s.spec.sweep));
  // only where the stored spec is the one checked (another process growing it at once takes one of the two)
  const { rowCount } = await db.query(
    `UPDATE sweeps SET spec = $2::jsonb, spec_hash = $3, spec_text = $4, cells = $5, repeats = $6,
       grown = grown || jsonb_build_array(jsonb_build_object('spec_hash', spec_hash, 'cells', cells,
                                                            'repeats', repeats, 'until', now()))
     WHERE id = $1 AND spec_hash = $7`,
    [s.spec.sweep, JSON.stringify(s.spec), s.hash, s.text, registered.cells.length, s.spec.repeats, stored.spec_hash],
  );
  if (rowCount !== 1) throw refuse('it was changed by another process at the same time');
  return registered;
}

async function insertCells(db: Sql, s: LoadedSweep): Promise<void> {
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
