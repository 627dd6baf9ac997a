// Every maze row fits the RDS Data API: a 201x201 maze, the largest allowed, is one row of about
// 14 KB (mazes.cells, 2 bits a cell) that reads back identically over pg and the Data API, and its replay and
// report come out over the Data API, whose rows stop at 64 KB; a database built at migration 013 (jsonb grids) is
// converted in place by 014 with every maze kept cell for cell and its content hash unchanged, and a maze that would
// not convert exactly stops the migration with nothing changed.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { generateMaze } from '../core/maze/generators/index.ts';
import { contentHash } from '../core/maze/grid.ts';
import type { Maze } from '../core/maze/maze.ts';
import { b64, packCells, packedLength, unpackCells } from '../core/maze/packed-grid.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { openDatabase, type Database } from '../core/store/database.ts';
import { loadMigrations, migrate } from '../core/store/migrate.ts';
import { loadReplay } from '../reports/replay-data.ts';
import { writeReport } from '../reports/write-report.ts';
import { overDataApi } from '../simulators/rds-data-sim.ts';
import { testDatabase, TRANSPORTS, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';

const LARGEST = { generator: 'perfect', width: 201, height: 201, seed: 3 };
const dir = tempDir('compact-mazes');

/** Where two mazes' cells differ, as "x,y: a != b" (none: []). */
function differences(a: Maze, b: Maze): string[] {
  const out: string[] = [];
  for (let i = 0; i < a.grid.cells.length && out.length < 5; i++)
    if (a.grid.cells[i] !== b.grid.cells[i])
      out.push(`${i % a.width},${Math.floor(i / a.width)}: ${a.grid.cells[i]} != ${b.grid.cells[i]}`);
  return out;
}

function expectSameMaze(read: Maze, made: Maze): void {
  expect([read.width, read.height, read.start, read.goal]).toEqual([made.width, made.height, made.start, made.goal]);
  expect(read.grid.cells.length).toBe(made.grid.cells.length);
  expect(differences(read, made)).toEqual([]);
  expect(read.hash).toBe(made.hash);
  expect(contentHash(read.grid, read.start)).toBe(made.hash);
}

describe('the packed layout', () => {
  it('round-trips every size from 5 to 201 and refuses a text of the wrong length or a tile 3', () => {
    // cell counts of every remainder mod 4 and mod 12 (the last byte, and the last base64 group, part used)
    for (const [width, height] of [
      [5, 5],
      [5, 6],
      [7, 5],
      [6, 8],
      [11, 12],
      [12, 13],
      [13, 13],
      [60, 61],
      [201, 200],
    ]) {
      const maze = generateMaze({ generator: 'medium', width, height, seed: width });
      const text = packCells(maze.grid);
      expect(text).toHaveLength(packedLength(width * height));
      expect(Buffer.from(unpackCells(text, width, height).cells)).toEqual(Buffer.from(maze.grid.cells));
    }
    const maze = generateMaze(LARGEST);
    expect(packCells(maze.grid)).toHaveLength(13_468); // under 16 KB with room to spare
    expect(() => unpackCells('AAAA', 5, 5)).toThrow('a 5x5 maze packs into 12 base64 characters, got 4');
    // cell 1 (x 1, y 0) set to 3: bits 2-3 of the first byte
    expect(() => unpackCells(b64(Uint8Array.of(0b1100, 0, 0, 0, 0, 0, 0, 0, 0)), 5, 5)).toThrow(
      'packed maze cell 1 (x 1, y 0) is 3',
    );
  });
});

describe.each(TRANSPORTS)('a 201x201 maze over %s', (transport) => {
  let db: TestDatabase;
  let experimentId: string;
  const made = generateMaze(LARGEST);
  beforeAll(async () => {
    db = await testDatabase({ transport });
    const run = await runLocalExperiment(
      { agent: 'frontier', agentSeed: 1, maze: { ...LARGEST }, config: { max_moves: 40 } },
      { db },
    );
    experimentId = run.experimentId!;
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
  });

  it('is one row of about 14 KB, read back whole and cell for cell identical', async () => {
    // the whole row, every column, through the transport: the Data API refuses a row over 64 KB
    const { rows } = await db.query<{ cells: string; content_hash: string; width: number }>(
      'SELECT * FROM mazes WHERE content_hash = $1',
      [made.hash],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].cells).toHaveLength(13_468);
    const { rows: size } = await db.pool.query<{ bytes: number }>(
      'SELECT octet_length(m::text) AS bytes FROM mazes m WHERE content_hash = $1',
      [made.hash],
    );
    expect(size[0].bytes).toBeLessThan(16 * 1024);
    const { rows: ids } = await db.query<{ maze_id: number }>('SELECT maze_id FROM experiments WHERE id = $1', [
      experimentId,
    ]);
    expectSameMaze(await new PgStore(db).loadMaze(ids[0].maze_id), made);
    // the SQL reader of the same layout (migration 014) agrees with the TypeScript one
    const { rows: sql } = await db.pool.query('SELECT maze_grid(cells, width, height) AS g FROM mazes WHERE id = $1', [
      ids[0].maze_id,
    ]);
    expect(sql[0].g).toEqual(made.grid.toRows());
  });

  it('replays with the maze the run had', async () => {
    const replay = await loadReplay(db, experimentId);
    expect(replay.steps).toBe(40);
    expect([replay.maze.width, replay.maze.height, replay.maze.start, replay.maze.goal]).toEqual([
      201,
      201,
      [made.start.x, made.start.y],
      [made.goal.x, made.goal.y],
    ]);
    expect(replay.maze.grid).toBe(b64(made.grid.cells));
  });

  it('writes a sweep report with the failed run replayed', async () => {
    const sweep = loadSweep(
      `sweep: largest-${transport}
agents: [{ agent: random }]
mazes: { generators: [perfect], sizes: [201], seeds: [3] }
config: { max_moves: 30 }
`,
      'test',
    );
    await runLocalSweep(sweep, { db, concurrency: 1 });
    const out = join(dir, `report-${transport}.html`);
    const written = await writeReport(db, `largest-${transport}`, out, 5);
    expect(written.replays).toBe(1);
    expect(written.replayFiles.every((f) => existsSync(f))).toBe(true);
  }, 120_000);
});

describe('migration 014 on a database built at 013', () => {
  const url = () => inject('databaseUrl');
  const mazes = [
    generateMaze({ generator: 'perfect', width: 5, height: 5, seed: 1 }),
    generateMaze({ generator: 'medium', width: 6, height: 9, seed: 2 }), // 54 cells: the last byte half used
    generateMaze({ generator: 'spiral', width: 13, height: 7, seed: 3 }),
    generateMaze({ generator: 'rooms_and_corridors', width: 60, height: 60, seed: 4 }),
    generateMaze(LARGEST),
  ];
  /** A database at 013 holding `rows` as 013's store wrote mazes (jsonb grid). */
  async function at013(schema: string, rows: Array<{ maze: Maze; grid?: unknown }>): Promise<Database> {
    const old = await openDatabase({ url: url(), schema, poolSize: 2, migrate: false, field: 'TEST_DATABASE_URL' });
    await migrate(old, { schema, migrations: (await loadMigrations()).filter((m) => m.version <= 13) });
    for (const { maze: m, grid } of rows)
      await old.query(
        `INSERT INTO mazes (content_hash, generator, seed, width, height, grid, start_x, start_y, goal_x, goal_y,
           shortest_path, shortest_path_to_sight) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12)`,
        [m.hash, m.generator, m.seed, m.width, m.height, JSON.stringify(grid ?? m.grid.toRows()), m.start.x,
         m.start.y, m.goal.x, m.goal.y, m.shortestPath, m.shortestPathToSight], // prettier-ignore
      );
    return old;
  }
  const dropped: Database[] = [];
  afterAll(async () => {
    for (const d of dropped) {
      await d.pool.query(`DROP SCHEMA IF EXISTS "${d.schema}" CASCADE`).catch(() => undefined);
      await d.close().catch(() => undefined);
    }
  });

  it('converts every maze in place, statement by statement through the Data API, keeping each exactly', async () => {
    const schema = `t_m13_${Date.now().toString(36)}`;
    const old = await at013(
      schema,
      mazes.map((maze) => ({ maze })),
    );
    const before = (await old.query('SELECT id, content_hash FROM mazes ORDER BY id')).rows;
    // the 201x201 maze as 013 stored it: a row the Data API cannot return
    const { rows: big } = await old.query<{ bytes: number }>(
      'SELECT octet_length(grid::text) AS bytes FROM mazes WHERE width = 201',
    );
    expect(big[0].bytes).toBe(121_605);
    const viaDataApi = await overDataApi(old, { url: url() });
    dropped.push(viaDataApi);
    await expect(viaDataApi.query('SELECT * FROM mazes WHERE width = 201')).rejects.toMatchObject({
      name: 'ResultTooLargeError',
      message: expect.stringMatching(/a row is over 64 KB/),
    });
    // 014, then any migration after it
    expect((await migrate(viaDataApi))[0]).toBe('014_compact_mazes.sql');
    expect((await old.query('SELECT id, content_hash FROM mazes ORDER BY id')).rows).toEqual(before);
    const { rows: columns } = await old.query<{ c: string }>(
      `SELECT column_name AS c FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'mazes'`,
      [schema],
    );
    expect(columns.map((r) => r.c)).toContain('cells');
    expect(columns.map((r) => r.c)).not.toContain('grid');
    const store = new PgStore(viaDataApi);
    for (const { id, content_hash } of before) {
      const read = await store.loadMaze(id);
      expectSameMaze(
        read,
        mazes.find((m) => m.hash === content_hash)!,
      );
    }
    // and the largest is now a row the Data API returns
    const { rows: after } = await viaDataApi.query<{ cells: string }>('SELECT * FROM mazes WHERE width = 201');
    expect(after[0].cells).toBe(packCells(mazes[4].grid));
  }, 60_000);

  it('stops, changing nothing, when a maze would not convert exactly', async () => {
    const schema = `t_m13_bad_${Date.now().toString(36)}`;
    const ragged = mazes[0].grid.toRows().map((row, y) => (y === 2 ? row.slice(0, 4) : row));
    const old = await at013(schema, [{ maze: mazes[1] }, { maze: mazes[0], grid: ragged }]);
    dropped.push(old);
    await expect(migrate(old, { schema })).rejects.toThrow(
      `migration 014_compact_mazes.sql failed: migration 014: mazes 2 (${mazes[0].hash}) do not convert exactly`,
    );
    const { rows } = await old.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM information_schema.columns
       WHERE table_schema = $1 AND table_name = 'mazes' AND column_name = 'grid'`,
      [schema],
    );
    expect(rows[0].n).toBe(1);
    const { rows: applied } = await old.query('SELECT max(version) AS v FROM schema_migrations');
    expect(applied[0].v).toBe(13);
  });
});
