// The behaviour analytics on runs the engine wrote, over pg and the Data API: a scripted run on the hand-drawn maze
// of behaviour.test.ts gives the values counted by hand there; a long random run (its moves read in several chunks)
// agrees with the kept totals of experiment_summary; a frontier run scores 1 against the frontier baseline.
// `ariadne summary`, `stats` (text, --json, csv, the paper table) and `report` show them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMazeText } from '../core/maze/maze-text.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { kindOf, runTraces, xOf, yOf } from '../results/run-moves.ts';
import { executedPath } from '../results/replay-logs.ts';
import { summaryOf } from '../results/summary-row.ts';
import { loadBehaviours } from '../reports/run-behaviours.ts';
import { TRANSPORTS, testDatabase, type TestDatabase } from './support/db.ts';
import { scriptedAgents } from './support/scripted-agent.ts';
import { cli } from './support/cli.ts';
import { tempDir } from './support/temp-dir.ts';

// behaviour.test.ts's maze: S (0,1) on the west edge, dead ends at (0,1), (1,3) and the goal (3,3)
const MAZE = parseMazeText(['#######', 'S.....#', '#.###.#', '#.#G..#', '#######'].join('\n'));
// its hand-made run POKING as tool calls: west off the edge, into the dead end (1,3), a wall, back and forth, recall
const SCRIPT = [
  'move_west',
  'move_east',
  'move_south',
  'move_south',
  'move_west',
  'move_north',
  'move_south',
  'move_north',
  'move_south',
  'move_north',
  'recall_all',
  'move_north',
  'move_west',
  'move_east',
];

const scripted = (db: TestDatabase) =>
  runLocalExperiment(
    {
      agent: 'random',
      maze: { grid: MAZE.grid.toRows(), start: MAZE.start },
      config: {
        vision_range: 1,
        see_through: false,
        success_rule: 'reached',
        max_actions_per_turn: SCRIPT.length,
        max_turns: 1,
      },
    },
    { db, agents: scriptedAgents([SCRIPT]) },
  );

const LONG = { generator: 'medium', size: 15, seed: 4 } as const;

describe.each(TRANSPORTS)('behaviour read from what runs wrote, over %s', (transport) => {
  let db: TestDatabase;
  const ids = { scripted: '', random: '', frontier: '' };
  beforeAll(async () => {
    db = await testDatabase({ transport });
    ids.scripted = (await scripted(db)).experimentId!;
    ids.random = (
      await runLocalExperiment({ agent: 'random', agentSeed: 3, maze: LONG, config: { max_moves: 2500 } }, { db })
    ).experimentId!;
    ids.frontier = (await runLocalExperiment({ agent: 'frontier', maze: LONG }, { db })).experimentId!;
  }, 120_000);
  afterAll(() => db.drop());

  it('gives the scripted run the values counted by hand', async () => {
    const b = (await loadBehaviours(db, [ids.scripted])).get(ids.scripted)!;
    expect([b.steps, b.moves, b.wallBumps, b.edgeBumps]).toEqual([14, 11, 2, 1]);
    expect([b.revisits, b.deadEndReentries, b.loopCells, b.mostEntries]).toEqual([8, 3, 0, 4]);
    expect([b.oscillations, b.oscillationMoves, b.cellsVisited, b.reachableCells]).toEqual([1, 6, 4, 12]);
    // vision 1: 4 tiles from the start, then 3, 2 and 3 new as it walks to (1,3); nothing new after step 4
    expect(b.coverage.tiles).toEqual([4, 4, 7, 9, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12]);
    expect(b.progress).toEqual({ lastStep: 4, x: 1, y: 3, stepsAfter: 10 });
    // the frontier walked by hand in behaviour.test.ts: 13 steps, 31 tiles by then; this run had 12 at step 13
    expect(b.frontier).toEqual({ goalStep: 13, atStep: 13, tiles: 31, runTiles: 12 });
    expect(b.explorationEfficiency).toBeCloseTo(12 / 31, 10);
  });

  it("reads a long run's moves in chunks, and agrees with the kept totals", async () => {
    const trace = (await runTraces(db, [ids.random])).get(ids.random)!;
    const path = await executedPath(db, ids.random);
    expect(trace.codes).toHaveLength(2500); // two chunks of 2,000 steps and one of 500
    expect(Array.from(trace.codes, (c) => [xOf(c), yOf(c)])).toEqual(path.map((p) => [p.to_x, p.to_y]));
    const b = (await loadBehaviours(db, [ids.random])).get(ids.random)!;
    const s = (await summaryOf(db, ids.random))!;
    expect(b.steps).toBe(s.actions);
    expect(b.loopCells).toBe(s.loop_cells);
    expect(b.looped).toBe(true);
    expect(b.mostEntries).toBe(s.max_cell_visits);
    expect(b.wallBumps).toBe(s.failed_moves);
    expect(b.tilesSeen).toBe(s.tiles_seen);
    expect(b.moves).toBe(Array.from(trace.codes).filter((c) => kindOf(c) === 'moved').length);
  });

  it('reads a finished run as finalize packed it, and the same from its actions while none is packed', async () => {
    const chunks = await db.pool.query<{ chunk: number; bytes: number }>(
      'SELECT chunk, length(actions) AS bytes FROM run_traces WHERE experiment_id = $1 ORDER BY chunk',
      [ids.random],
    );
    expect(chunks.rows).toEqual([
      { chunk: 0, bytes: 20_000 },
      { chunk: 1, bytes: 5_000 },
    ]);
    const packed = await runTraces(db, [ids.random, ids.scripted]);
    // as a running run is read: its packed rows gone, from its actions
    await db.pool.query('DELETE FROM run_traces WHERE experiment_id = $1', [ids.random]);
    const fromActions = await runTraces(db, [ids.random, ids.scripted]);
    expect(Array.from(fromActions.get(ids.random)!.codes)).toEqual(Array.from(packed.get(ids.random)!.codes));
    expect(Array.from(fromActions.get(ids.random)!.tiles)).toEqual(Array.from(packed.get(ids.random)!.tiles));
    expect(Array.from(fromActions.get(ids.scripted)!.codes)).toEqual(Array.from(packed.get(ids.scripted)!.codes));
    // migration 035 packs the runs that finished before it as finalize does: its INSERT, run again on this database
    const migration = readFileSync(join(import.meta.dirname, '..', 'migrations', '035_run_traces.sql'), 'utf8');
    await db.pool.query('DELETE FROM run_traces');
    await db.pool.query(migration.slice(migration.indexOf('INSERT INTO run_traces')));
    const backfilled = await runTraces(db, [ids.random, ids.scripted]);
    for (const id of [ids.random, ids.scripted])
      expect(Array.from(backfilled.get(id)!.codes)).toEqual(Array.from(packed.get(id)!.codes));
  });

  it("scores a frontier run 1 against the frontier baseline: it is the baseline's walk", async () => {
    const b = (await loadBehaviours(db, [ids.frontier])).get(ids.frontier)!;
    const s = (await summaryOf(db, ids.frontier))!;
    expect(s.goal_found).toBe(true);
    expect(b.frontier.goalStep).toBe(s.actions);
    expect([b.explorationEfficiency, b.stepsVsFrontier, b.progress]).toEqual([1, 1, null]);
    expect(await loadBehaviours(db, ['no-such-run'])).toEqual(new Map());
  });
});

const SWEEP = `sweep: behaviour-cli
agents: [{ agent: random }, { agent: frontier }]
mazes: { generators: [medium], sizes: [11], seeds: [1, 2] }
config: { max_moves: 100 }
repeats: 2
max_concurrency: 2
`;

describe('ariadne summary, stats and report show the behaviour', () => {
  let db: TestDatabase;
  let id = '';
  const { ariadne } = cli(() => db);
  beforeAll(async () => {
    db = await testDatabase();
    id = (await scripted(db)).experimentId!;
    await runLocalSweep(loadSweep(SWEEP, 'test'), { db });
  }, 120_000);
  afterAll(() => db.drop());

  it('summary: a behaviour section, and --json its every figure', async () => {
    const text = await ariadne(['summary', id]);
    expect(text.stdout).toMatch(/^behaviour {4}looped: no \(most entries of one cell: 4\)$/m);
    expect(text.stdout).toMatch(/^ {13}moves: 11 taken, 2 refused by a wall or the edge \(15\.4 per 100\)$/m);
    expect(text.stdout).toMatch(/^ {13}progress stopped at step 4 in \(1,3\): 10 steps after it saw no new tile/m);
    const json = JSON.parse((await ariadne(['summary', id, '--json'])).stdout);
    expect(json.behaviour).toEqual(JSON.parse(JSON.stringify((await loadBehaviours(db, [id])).get(id))));
  });

  it('stats: per group over its independent runs, in the text, --json, csv and the paper table', async () => {
    const json = JSON.parse((await ariadne(['stats', 'behaviour-cli', '--json'])).stdout);
    for (const g of json.groups) {
      expect(g.behaviour.runs).toBe(g.independent);
      expect(g.behaviour.looped.mazes).toBe(2);
      expect(g.behaviour.looped.value).toBeGreaterThanOrEqual(0);
    }
    const frontier = json.groups.find((g: { factors: { label: string } }) => g.factors.label === 'frontier');
    expect(frontier.behaviour.explorationEfficiency.value).toBe(1);
    const text = (await ariadne(['stats', 'behaviour-cli'])).stdout;
    expect(text).toMatch(/^behaviour \(maze-level 95% intervals, mazes\):$/m);
    expect(text).toMatch(/^ {2}frontier: over 2 runs: looped 0\.0% \(/m);
    expect(text).toMatch(/MazeEval's loop/);
    const csv = (await ariadne(['stats', 'behaviour-cli', '--format', 'csv'])).stdout.split('\n')[0].split(',');
    expect(csv).toEqual(expect.arrayContaining(['looped_rate', 'looped_rate95_low', 'revisit_ratio']));
    // --no-behaviour reads no move: no figure, no column, no note
    const without = JSON.parse((await ariadne(['stats', 'behaviour-cli', '--json', '--no-behaviour'])).stdout);
    expect(without.groups.map((g: object) => 'behaviour' in g)).toEqual([false, false]);
    expect((await ariadne(['stats', 'behaviour-cli', '--no-behaviour'])).stdout).not.toMatch(/MazeEval/);
    const md = (await ariadne(['stats', 'behaviour-cli', '--format', 'markdown'])).stdout;
    expect(md).toContain(
      '| looped % | looped 95% CI | revisit ratio | wall bumps / 100 attempts | tiles vs frontier |',
    );
    expect(md).toMatch(/^Looped: runs that entered some cell 10 or more times \(MazeEval's loop\)/m);
  });

  it('report: a behaviour table with a row per statistics row, and its notes', async () => {
    const dir = tempDir('behaviour');
    const out = join(dir, 'r.html');
    expect((await ariadne(['report', 'behaviour-cli', '--out', out, '--max-replays', '0'])).code).toBe(0);
    const html = readFileSync(out, 'utf8');
    const table = html.slice(html.indexOf('<table id="behaviour">'));
    expect(table.slice(0, table.indexOf('</table>')).match(/<tr><td>/g)).toHaveLength(2); // frontier, random
    expect(html).toContain('MazeEval&#39;s loop');
    expect(
      (await ariadne(['report', 'behaviour-cli', '--out', out, '--max-replays', '0', '--no-behaviour'])).code,
    ).toBe(0);
    expect(readFileSync(out, 'utf8')).not.toContain('<table id="behaviour">');
  });
});
