// The order a sweep starts its runs in (core/sweeps/sweep-order.ts): repeat-major, maze by maze in a seeded
// shuffle, within a maze every setting with every agent, consecutive starts rotating over the agents; the same on
// a laptop and in the AWS run list, reproducible from the sweep's name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSweep, sweepExperimentId, type SweepRun } from '../core/sweeps/sweep-spec.ts';
import { sweepRunOrder } from '../core/sweeps/sweep-order.ts';
import { sweepLaunch } from '../core/machine/sweep-machine-input.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

const spec = (name: string) => `sweep: ${name}
agents:
  - { agent: random }
  - { agent: frontier }
  - { agent: random, label: random-b }
mazes: { generators: [medium], sizes: [11, 15], seeds: [1, 2] }
settings: { max_actions_per_turn: [4, 8] }
config: { max_moves: 200 }
repeats: 2
`;

const maze = (r: SweepRun) => `${r.cell.generator} ${r.cell.size} ${r.cell.seed}`;
const ids = (name: string, runs: SweepRun[]) => runs.map((r) => sweepExperimentId(name, r, 1));

describe('the order a sweep starts its runs in', () => {
  const loaded = loadSweep(spec('order-a'), 'test');
  const order = sweepRunOrder('order-a', loaded.runs);

  it('holds every run once, repeat-major, maze by maze, every agent before an agent comes again', () => {
    expect(new Set(ids('order-a', order))).toEqual(new Set(ids('order-a', loaded.runs)));
    expect(order).toHaveLength(loaded.runs.length);
    // repeat 1 of every cell before any repeat 2
    expect(order.map((r) => r.repeat)).toEqual([...Array(24).fill(1), ...Array(24).fill(2)]);
    // a maze's 6 runs (3 agents x 2 settings) one after the other: a cut leaves whole mazes and one part done
    for (let b = 0; b < order.length; b += 6) expect(new Set(order.slice(b, b + 6).map(maze)).size).toBe(1);
    // three consecutive starts in a maze's setting: the three agents
    for (let b = 0; b < order.length; b += 3) {
      expect(new Set(order.slice(b, b + 3).map((r) => r.cell.label)).size).toBe(3);
      expect(new Set(order.slice(b, b + 3).map((r) => JSON.stringify(r.cell.settings))).size).toBe(1);
    }
    // no agent always first: the first agent of each maze rotates
    expect(new Set(order.filter((_, i) => i % 6 === 0).map((r) => r.cell.label)).size).toBe(3);
  });

  it('any cut leaves every agent within one run of the others', () => {
    for (let n = 1; n <= order.length; n++) {
      const counts = new Map<string, number>();
      for (const r of order.slice(0, n)) counts.set(r.cell.label, (counts.get(r.cell.label) ?? 0) + 1);
      const values = ['random', 'frontier', 'random-b'].map((l) => counts.get(l) ?? 0);
      expect(Math.max(...values) - Math.min(...values), `after ${n} starts`).toBeLessThanOrEqual(1);
    }
  });

  it('is seeded by the name: the same again, another for another name, not the index order', () => {
    expect(ids('order-a', sweepRunOrder('order-a', loadSweep(spec('order-a'), 'test').runs))).toEqual(
      ids('order-a', order),
    );
    const other = loadSweep(spec('order-b'), 'test');
    expect(ids('order-b', sweepRunOrder('order-b', other.runs))).not.toEqual(
      ids('order-b', sweepRunOrder('order-a', other.runs)),
    );
    expect(ids('order-a', order)).not.toEqual(ids('order-a', loaded.runs));
  });

  it('is the AWS run list order', () => {
    const items = JSON.parse(sweepLaunch(loaded, 'bucket').runsObject.body) as Array<{ name: string }>;
    expect(items.map((i) => i.name)).toEqual(ids('order-a', order));
  });

  describe('on this machine', () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await testDatabase();
    });
    afterAll(async () => {
      await db.drop();
    });

    it('starts its runs in that order', async () => {
      const result = await runLocalSweep(loaded, { db, concurrency: 1 });
      expect(result).toMatchObject({ done: 48, ran: { start: 48, resume: 0, retry: 0 }, notStarted: 0 });
      const { rows } = await db.pool.query<{ id: string }>(
        "SELECT id FROM experiments WHERE sweep_id = 'order-a' ORDER BY started_at, id",
      );
      expect(rows.map((r) => r.id)).toEqual(ids('order-a', order));
    });
  });
});
