// `ariadne status` and `ariadne sweep status`: what runs now, read the same way over pg and the Data API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { loadSweep, sweepRunInput } from '../core/sweeps/sweep-spec.ts';
import { registerSweep } from '../core/sweeps/sweep-registry.ts';
import { statusLines } from '../reports/live-status.ts';
import { runningExperiments, STALE_AFTER_SECONDS, sweepTotals } from '../results/live-status.ts';
import { TRANSPORTS, testDatabase, type TestDatabase } from './support/db.ts';

const SWEEP = `sweep: live-status
agents: [{ agent: frontier }]
mazes: { generators: [medium], sizes: [9], seeds: [1, 2] }
repeats: 2
max_concurrency: 1
`;

describe.each(TRANSPORTS)('live status over %s', (transport) => {
  let db: TestDatabase;
  let ids: string[];
  beforeAll(async () => {
    db = await testDatabase({ transport });
    const sweep = loadSweep(SWEEP, 'test');
    await registerSweep(db, sweep);
    // three of the four runs: two finished, one left running (its row updated an hour ago: stale), one not started
    ids = [];
    for (const run of sweep.runs.slice(0, 3)) {
      const result = await runLocalExperiment(sweepRunInput(sweep.spec.sweep, run, 1), { db });
      ids.push(result.experimentId!);
    }
    await db.pool.query(
      `UPDATE experiments SET status = 'running', goal_found = false, updated_at = now() - interval '1 hour'
       WHERE id = $1`,
      [ids[2]],
    );
    const solo = await runLocalExperiment(
      { agent: 'random', agentSeed: 1, maze: { generator: 'medium', size: 9, seed: 1 } },
      { db },
    );
    await db.pool.query(`UPDATE experiments SET status = 'running', updated_at = now() WHERE id = $1`, [
      solo.experimentId,
    ]);
    ids.push(solo.experimentId!);
  }, 60_000);
  afterAll(async () => {
    await db.drop();
  });

  it('lists the running experiments with their progress, and flags the one that stopped reporting', async () => {
    const running = await runningExperiments(db);
    expect(running.map((r) => r.experiment_id)).toEqual([ids[2], ids[3]]);
    const [stale, fresh] = running;
    expect(stale.stale).toMatch(/no turn recorded for 60 min/);
    expect(fresh.stale).toBeNull();
    expect(fresh.actions).toBeGreaterThan(0);
    expect(fresh.turns).toBeGreaterThan(0);
    expect(STALE_AFTER_SECONDS).toBeLessThan(3600);
    expect((await runningExperiments(db, new Date(), 'live-status')).map((r) => r.experiment_id)).toEqual([ids[2]]);
    expect(statusLines(running, null)).toEqual(['2 experiment(s) running, 1 stale']);
  });

  it("totals a sweep's runs by state", async () => {
    const totals = await sweepTotals(db, 'live-status');
    expect(totals).toMatchObject({ runs: 4, started: 3, running: 1, completed: 2, failed: 0, goal_found: 2 });
    expect(totals!.actions).toBeGreaterThan(0);
    expect(await sweepTotals(db, 'no-such-sweep')).toBeNull();
    expect(statusLines([], totals)[0]).toMatch(/^sweep live-status: 2\/4 done, 1 running, 1 not started, 0 failed/);
  });
});
