// Sweeps that grow under their name: more seeds, repeats, agents or setting values added to a
// sweep that ran, its finished runs kept (not run again, their ids and cells unchanged), the new cells registered
// after the old, the statistics over all; anything but growth refused, naming what changed; never on AWS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { registerSweep } from '../core/sweeps/sweep-registry.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { factorStats } from '../reports/factor-stats.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});

const spec = (name: string, o: { agents?: string; seeds?: string; repeats?: number; settings?: string } = {}) =>
  loadSweep(
    `sweep: ${name}
agents:
${o.agents ?? '  - { agent: frontier }'}
mazes: { generators: [medium], sizes: [11], seeds: [${o.seeds ?? '1, 2'}] }
settings: { vision_range: [${o.settings ?? '3'}] }
config: { max_moves: 300 }
repeats: ${o.repeats ?? 1}
`,
    'test',
  );

const cells = async (name: string) =>
  (
    await db.pool.query<{ cell_index: number; cell_key: string }>(
      'SELECT cell_index, cell_key FROM sweep_cells WHERE sweep_id = $1 ORDER BY cell_index',
      [name],
    )
  ).rows.map((r) => `${r.cell_index}: ${r.cell_key}`);
const experiments = async (name: string) =>
  (
    await db.pool.query<{ id: string; started_at: Date }>(
      'SELECT id, started_at FROM experiments WHERE sweep_id = $1 ORDER BY id',
      [name],
    )
  ).rows;

describe('a sweep that grows', () => {
  it('keeps its finished runs and their cells, adds the new after them, and counts all in its statistics', async () => {
    const first = await runLocalSweep(spec('grows'), { db });
    expect(first.done).toBe(2);
    const before = await experiments('grows');
    const cellsBefore = await cells('grows');

    const agents = '  - { agent: frontier }\n  - { agent: random }';
    const grown = await runLocalSweep(spec('grows', { agents, seeds: '1, 2, 3', repeats: 2, settings: '3, 5' }), {
      db,
    });
    // 2 agents x 3 seeds x 2 vision ranges x 2 repeats: the 2 finished runs kept, the other 22 run
    expect(grown.planned).toMatchObject({ skip: 2, start: 22, resume: 0, retry: 0 });
    expect(grown.done).toBe(24);
    const after = await experiments('grows');
    for (const e of before) expect(after).toContainEqual(e); // not run again: same ids, same start
    // the old cells where they were, the new after them
    const cellsAfter = await cells('grows');
    expect(cellsAfter.slice(0, cellsBefore.length)).toEqual(cellsBefore);
    expect(cellsAfter).toHaveLength(12);
    // every run belongs to its cell: the id's cell index is the cell whose settings the run has
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM experiments e JOIN sweep_cells c ON c.sweep_id = e.sweep_id
         AND c.cell_index = e.sweep_cell
       WHERE e.sweep_id = 'grows' AND (e.agent <> c.agent OR (e.config ->> 'vision_range')::int
         <> (c.settings ->> 'vision_range')::int)`,
    );
    expect(rows[0].n).toBe(0);
    const groups = await factorStats(db.pool, 'grows', ['label', 'vision_range']);
    expect(groups.map((g) => [g.label, g.vision_range, g.n])).toEqual([
      ['frontier', '3', 6],
      ['frontier', '5', 6],
      ['random', '3', 6],
      ['random', '5', 6],
    ]);
    const { rows: versions } = await db.pool.query<{ grown: Array<{ cells: number; repeats: number }> }>(
      "SELECT grown FROM sweeps WHERE id = 'grows'",
    );
    expect(versions[0].grown).toMatchObject([{ cells: 2, repeats: 1 }]);
  });

  it.each([
    ['a seed dropped', { seeds: '1' }, /mazes\.seeds lost a value/],
    ['an agent gone', { agents: '  - { agent: random }' }, /agent "frontier" is gone/],
    ['fewer repeats', { repeats: 1 }, /repeats fell from 2 to 1/],
    ['a setting value dropped', { settings: '5' }, /settings\.vision_range lost a value/],
  ] as const)('refuses what is not growth: %s', async (what, change, message) => {
    const name = `strict-${what.replaceAll(' ', '-')}`;
    await runLocalSweep(spec(name, { repeats: 2 }), { db });
    const changed = spec(name, { repeats: 2, ...change });
    await expect(registerSweep(db.pool, changed)).rejects.toThrow(message);
    await expect(registerSweep(db.pool, changed)).rejects.toThrow(/it may grow .* give the changed sweep a new name/);
    expect(await cells(name)).toHaveLength(2);
  });

  it('a changed shared config is refused, and on AWS (growth: false) even growth is', async () => {
    await runLocalSweep(spec('fixed'), { db });
    const changedConfig = loadSweep(spec('fixed').text.replace('max_moves: 300', 'max_moves: 400'), 'test');
    await expect(registerSweep(db.pool, changedConfig)).rejects.toThrow(
      /already exists with a different spec \(its config\)/,
    );
    await expect(registerSweep(db.pool, spec('fixed', { seeds: '1, 2, 3' }), { growth: false })).rejects.toThrow(
      /on AWS it does not grow/,
    );
    expect(await cells('fixed')).toHaveLength(2);
  });
});
