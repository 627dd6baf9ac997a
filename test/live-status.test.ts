// `ariadne status` and `ariadne sweep status`: what runs now, read the same way over pg and the Data API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { loadSweep, sweepRunInput } from '../core/sweeps/sweep-spec.ts';
import { registerSweep } from '../core/sweeps/sweep-registry.ts';
import { statusLines } from '../reports/live-status.ts';
import { runningExperiments, STALE_AFTER_SECONDS, sweepTotals } from '../results/live-status.ts';
import { TRANSPORTS, testDatabase, type TestDatabase } from './support/db.ts';
import { PgStore } from '../core/store/pg-store.ts';

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

  it("says a run's outage from its failed tries: the retries', then the wait's, until the turn commits", async () => {
    const id = ids[3];
    const store = new PgStore(db);
    const { rows } = await db.query<{ turns: number }>(
      'SELECT turns_completed AS turns FROM experiments WHERE id = $1',
      [id],
    );
    const turn = rows[0].turns + 1;
    const outage = async () => {
      const r = (await runningExperiments(db)).find((x) => x.experiment_id === id)!;
      const at = (d: Date | null) => (d === null ? null : new Date(d).getTime());
      return { since: at(r.provider_down_since), next: at(r.provider_next_try_at), stale: r.stale };
    };
    expect(await outage()).toEqual({ since: null, next: null, stale: null });
    const fail = async (waits: number) => {
      const before = Date.now();
      await store.recordProviderDown({
        experimentId: id,
        turnNumber: turn,
        waits,
        nextTrySeconds: [30, 60, 15 << waits],
      });
      const o = await outage();
      // the next try in seconds from this failure (the database's clock and this one a little apart)
      return { ...o, inSeconds: Math.round((o.next! - before) / 1000) };
    };
    const first = await fail(0);
    expect(first).toMatchObject({ inSeconds: 30, stale: null });
    expect(await fail(0)).toMatchObject({ since: first.since, inSeconds: 60 });
    expect(await fail(0)).toMatchObject({ since: first.since, inSeconds: 15 }); // the retries spent: the first wait
    expect(await fail(1)).toMatchObject({ since: first.since, inSeconds: 30 }); // after it, the turn's retries again
    // a try that is not the running experiment's next turn notes nothing
    await store.recordProviderDown({ experimentId: id, turnNumber: turn + 1, waits: 0, nextTrySeconds: [1] });
    expect((await fail(1)).inSeconds).toBe(60);
    // the turn committed: the outage is over
    await db.query('UPDATE experiments SET turns_completed = turns_completed + 1 WHERE id = $1', [id]);
    expect(await outage()).toEqual({ since: null, next: null, stale: null });
    await db.query('UPDATE experiments SET turns_completed = turns_completed - 1 WHERE id = $1', [id]);
  });

  it("totals a sweep's runs by state", async () => {
    const totals = await sweepTotals(db, 'live-status');
    expect(totals).toMatchObject({ runs: 4, started: 3, running: 1, completed: 2, failed: 0, goal_found: 2 });
    expect(totals!.actions).toBeGreaterThan(0);
    expect(await sweepTotals(db, 'no-such-sweep')).toBeNull();
    expect(statusLines([], totals)[0]).toMatch(/^sweep live-status: 2\/4 done, 1 running, 1 not started, 0 failed/);
  });
});
