// What a sweep does with its run list is written once (state-machine/sweep-runner.ts), with the Map's rules read from
// the synthesized sweep machine: the same sweep through the local sweep and through the rehearsal's emulated
// Distributed Map starts the same runs, in the same order, as many at once, and makes the same stop decisions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSweep, type LoadedSweep } from '../core/sweeps/sweep-spec.ts';
import { sweepLaunch } from '../core/machine/sweep-machine-input.ts';
import { agents } from '../core/providers/agents.ts';
import type { AgentFactory } from '../core/engine/agent.ts';
import { STATES } from '../core/machine/states.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { sweepDefinition } from '../state-machine/definition.ts';
import { EXCEEDED_TOLERANCE, sweepMapRules, ToleratedFailuresExceededError } from '../state-machine/sweep-runner.ts';
import { SWEEP_STATES } from '../lib/sweep-state-machine.ts';
import { emulateMapRun } from '../rehearsal/sweep-machine.ts';
import type { AslState } from '../rehearsal/asl.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

const WIDTH = 3;
const RUN = SWEEP_STATES.RunExperiments;
/** The synthesized sweep machine with its Map's ToleratedFailurePercentage replaced. */
function tolerating(percent: number) {
  const d = sweepDefinition();
  const map = { ...d.States.RunExperiments, ToleratedFailurePercentage: percent };
  return { ...d, States: { ...d.States, RunExperiments: map } };
}

/** A sweep of 12 runs, its run list as the Map reads it (each item named by its experiment id, in the run order). */
function sweepOf(name: string) {
  const loaded = loadSweep(
    `sweep: ${name}
agents:
  - { agent: random }
  - { agent: frontier }
mazes: { generators: [medium], sizes: [7], seeds: [1, 2, 3] }
config: { max_moves: 60 }
repeats: 2
max_concurrency: ${WIDTH}
`,
    'test',
  );
  const items = JSON.parse(sweepLaunch(loaded, 'bucket').runsObject.body) as Array<{ name: string }>;
  // two runs whose agent fails: an error ends them (FAILED), not a navigation failure
  const failing = new Set([items[1].name, items[4].name]);
  const agentsFailing: AgentFactory = (identity) =>
    failing.has(identity.experimentId) ? { act: () => Promise.reject(new Error('the agent broke')) } : agents(identity);
  return { loaded, items, failing, agentsFailing };
}

/** The Map state, and the input its MaxConcurrencyPath reads (RegisterSweep's answer: `width`). */
const mapState = (definition = sweepDefinition()) => definition.States[RUN] as AslState;
const mapInput = (loaded: LoadedSweep, width: number) => ({
  ...sweepLaunch(loaded, 'bucket', width).input,
  registered: { maxConcurrency: width },
});

describe('one sweep runner for the laptop and the Map', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('takes its rules from the synthesized sweep machine', () => {
    expect(sweepMapRules(sweepDefinition())).toEqual({
      stateName: SWEEP_STATES.RunExperiments,
      maxConcurrency: { path: '$.registered.maxConcurrency' },
      toleratedFailurePercentage: 100,
    });
  });

  it('the same sweep through both: the same runs, in the same order, as many at once, past its failures', async () => {
    const { loaded, items, failing, agentsFailing } = sweepOf('runner-parity');
    const map = { order: [] as string[], running: 0, peak: 0 };
    const emulated = await emulateMapRun(RUN, mapState(), mapInput(loaded, WIDTH), items, async (item) => {
      const { name } = item as { name: string };
      map.order.push(name);
      map.peak = Math.max(map.peak, ++map.running);
      await new Promise((r) => setTimeout(r, 5 + (map.order.length % 3)));
      map.running--;
      return { status: failing.has(name) ? ('FAILED' as const) : ('SUCCEEDED' as const) };
    });

    const local = { order: [] as string[], peak: 0 };
    const result = await runLocalSweep(loaded, {
      db,
      agents: agentsFailing,
      retryIntervals: { [STATES.InvokeBaselineAgent]: 0 },
      // a run is in `running` from its start to its end: new ids come in the order the runs start
      onProgress: (p) => {
        for (const id of p.running.keys()) if (!local.order.includes(id)) local.order.push(id);
        local.peak = Math.max(local.peak, p.running.size);
      },
    });

    expect(local.order).toEqual(items.map((i) => i.name));
    expect(map.order).toEqual(local.order);
    expect([emulated.width, emulated.list.maxInFlight, map.peak, local.peak]).toEqual([WIDTH, WIDTH, WIDTH, WIDTH]);
    // a failed run stops nothing: every run ran, the failures counted apart
    expect(emulated.list).toMatchObject({ untaken: 0, counts: { SUCCEEDED: 10, FAILED: 2 } });
    expect(emulated.list.halted).toBeUndefined();
    expect(result).toMatchObject({ done: 12, failed: 2, notStarted: 0, ran: { start: 12 } });
  });

  it('a Map that tolerates fewer failures stops starting runs after the same run in both', async () => {
    const { loaded, items, failing, agentsFailing } = sweepOf('runner-strict');
    const strict = tolerating(10);
    const started: string[] = [];
    const { list } = await emulateMapRun(RUN, mapState(strict), mapInput(loaded, 1), items, (item) => {
      const { name } = item as { name: string };
      started.push(name);
      return Promise.resolve({ status: failing.has(name) ? ('FAILED' as const) : ('SUCCEEDED' as const) });
    });
    // 2 of 12 is over 10%: the second failure (the fifth run) is the last to start
    expect(started).toEqual(items.slice(0, 5).map((i) => i.name));
    expect(list).toMatchObject({ halted: EXCEEDED_TOLERANCE, untaken: 7, counts: { FAILED: 2, SUCCEEDED: 3 } });

    // the laptop's sweep fails as the execution would, after the same five runs
    await expect(
      runLocalSweep(loaded, {
        db,
        concurrency: 1,
        agents: agentsFailing,
        retryIntervals: { [STATES.InvokeBaselineAgent]: 0 },
        sweepDefinition: strict,
      }),
    ).rejects.toThrow(ToleratedFailuresExceededError);
    const { rows } = await db.pool.query<{ id: string }>(
      'SELECT id FROM experiments WHERE sweep_id = $1 ORDER BY started_at, id',
      [loaded.spec.sweep],
    );
    expect(rows.map((r) => r.id)).toEqual(started);
  });
});
