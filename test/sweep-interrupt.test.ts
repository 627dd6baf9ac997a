// SIGTERM to a real `ariadne sweep`: the turns in flight commit, their runs are marked interrupted (not failed), the
// command says what it left and how to resume; the same `ariadne sweep FILE` then finishes the sweep, and every run's
// actions are those of the same sweep run undisturbed.
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { ariadneProcess, outputOf } from './support/cli.ts';
import { startHoldingProxy, type HoldingProxy } from './support/holding-proxy.ts';
import { tempDir } from './support/temp-dir.ts';
import { sweepProgress } from '../bin/cli/sweep-progress.ts';
import type { SweepProgress } from '../state-machine/local-sweep.ts';
import { loadSweep, sweepExperimentId } from '../core/sweeps/sweep-spec.ts';
import { sweepRunOrder } from '../core/sweeps/sweep-order.ts';

let db: TestDatabase;
/** The same sweep, run without a stop: what every run's actions must equal. */
let undisturbed: TestDatabase;
/**
 * One model per run: the simulated model keeps one map per model, so runs of one model in parallel would share it
 * and play differently each time; with a model each, every run plays the same, stopped or not.
 */
const SWEEP = 'stop-test';
const MODELS = ['qwen2.5:7b', 'llama3.1:8b', 'llama3.2:3b', 'mistral:7b'];
const sim = new OllamaSim({ models: MODELS });
let proxy: HoldingProxy;
let proxyUrl = '';
/**
 * While set, the proxy holds the first model call of each run's second turn (once its first turn is in the database)
 * until the test releases it. Cell i of the sweep is the agent with MODELS[i].
 */
let holdSecondTurn = false;
const heldModels = new Set<string>();
let onHeld = () => {};

/** The first chat call of a run's second turn, while holdSecondTurn is set. */
async function secondTurnCall(path: string, body: Buffer): Promise<boolean> {
  if (path !== '/api/chat' || !holdSecondTurn) return false;
  const { model } = JSON.parse(body.toString()) as { model: string };
  if (heldModels.has(model)) return false;
  const id = `${SWEEP}-c${MODELS.indexOf(model)}-r1`;
  const { rows } = await db.query<{ n: number }>('SELECT turns_completed AS n FROM experiments WHERE id = $1', [id]);
  if ((rows[0]?.n ?? 0) < 1) return false;
  heldModels.add(model);
  return true;
}

beforeAll(async () => {
  [db, undisturbed] = await Promise.all([testDatabase(), testDatabase()]);
  // in front of the simulated model: the sweep's turns can be kept in flight while the test sends SIGTERM
  proxy = await startHoldingProxy(await sim.listen(), secondTurnCall, () => onHeld());
  proxyUrl = proxy.url;
});
/** The sweep processes started, ended in afterAll if a failed assertion left one waiting. */
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await proxy.close();
  await sim.close();
  await Promise.all([db.drop(), undisturbed.drop()]);
});

const RUNS = MODELS.length;
const CONCURRENCY = 2;
/** Hints as an installed `ariadne` prints them (tests run under `npm test`, which sets npm's variables). */
const INSTALLED = { npm_lifecycle_event: '', npm_package_name: '' };
const envOf = (d: TestDatabase) => ({ DATABASE_URL: d.url, DATABASE_SCHEMA: d.schema, ...INSTALLED });
const sweepOf = (file: string, d: TestDatabase) => {
  const child = ariadneProcess(['sweep', file], envOf(d));
  children.push(child);
  return child;
};

/** Every run's actions, by experiment id: what was done, in which turn, from where to where. */
async function actionsPerRun(d: TestDatabase): Promise<Record<string, string[]>> {
  const { rows } = await d.query<{ id: string; action: string }>(
    `SELECT a.experiment_id AS id,
       concat_ws(' ', a.turn_number, a.call_index, a.step_number, a.tool, a.arguments::text, a.outcome,
                 a.from_x, a.from_y, a.to_x, a.to_y) AS action
     FROM actions a JOIN experiments e ON e.id = a.experiment_id
     WHERE e.sweep_id = $1 ORDER BY a.experiment_id, a.turn_number, a.call_index`,
    [SWEEP],
  );
  const out: Record<string, string[]> = {};
  for (const r of rows) (out[r.id] ??= []).push(r.action);
  return out;
}

describe('SIGTERM during ariadne sweep', () => {
  it('stops each run in flight after its turn, marked interrupted; the same sweep FILE then finishes it', async () => {
    const file = join(tempDir('sweep-interrupt'), 'stop-test.yaml');
    writeFileSync(
      file,
      `sweep: ${SWEEP}
agents:
${MODELS.map((m) => `  - { agent: ollama, model: "${m}" }`).join('\n')}
mazes: { generators: [medium], sizes: [15], seeds: [3] }
config: { max_moves: 60, ollama: { host: "${proxyUrl}" } }
repeats: 1
max_concurrency: ${CONCURRENCY}
`,
    );
    // the runs the sweep starts first (its seeded order, sweep-order.ts): the ones in flight at the stop
    const first = sweepRunOrder(SWEEP, loadSweep(readFileSync(file, 'utf8')).runs)
      .slice(0, CONCURRENCY)
      .map((r) => sweepExperimentId(SWEEP, r, 1))
      .sort();
    holdSecondTurn = true;
    const child = sweepOf(file, db);
    const ended = outputOf(child);
    let stderr = '';
    const said = new Promise<void>((resolve) =>
      child.stderr.on('data', (d) => {
        stderr += d;
        if (stderr.includes('SIGTERM: starting no more runs')) resolve();
      }),
    );
    // each run in flight has its first turn logged, and a model call of its second held
    const allHeld = new Promise<void>((resolve) => {
      onHeld = () => {
        if (proxy.held() === CONCURRENCY) resolve();
      };
    });
    await allHeld;
    const inFlight = await db.query<{ id: string; turns: number }>(
      'SELECT id, turns_completed AS turns FROM experiments WHERE sweep_id = $1 ORDER BY id',
      [SWEEP],
    );
    expect(inFlight.rows).toEqual([
      { id: first[0], turns: 1 },
      { id: first[1], turns: 1 },
    ]);
    child.kill('SIGTERM');
    await said;
    proxy.releaseAll(); // the turns in flight answer, and commit
    const r = await ended;
    expect(r.code, r.stderr).toBe(143);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/SIGTERM: starting no more runs, stopping each run in flight after its turn; SIGTERM/);
    expect(r.stderr).toContain(
      `sweep ${SWEEP} interrupted: 2 run(s) marked interrupted (their logs kept): ${first[0]}, ${first[1]}; ` +
        `2 not started; 0 done; resume with: ariadne sweep ${file}\n`,
    );

    // the turn in flight committed and no other started; marked interrupted, not failed
    const runs = await db.query<{ id: string; status: string; turns: number; reason: string | null; at: Date | null }>(
      `SELECT id, status, turns_completed AS turns, interrupted_reason AS reason, interrupted_at AS at
       FROM experiments WHERE sweep_id = $1 ORDER BY id`,
      [SWEEP],
    );
    const interrupted = { status: 'running', turns: 2, reason: 'SIGTERM to ariadne sweep', at: expect.any(Date) };
    expect(runs.rows).toEqual([
      { id: first[0], ...interrupted },
      { id: first[1], ...interrupted },
    ]);
    const turns = await db.query<{ id: string; n: number }>(
      `SELECT experiment_id AS id, count(*)::int AS n FROM turns WHERE experiment_id LIKE $1 || '-%'
       GROUP BY 1 ORDER BY 1`,
      [SWEEP],
    );
    expect(turns.rows.map((x) => x.n)).toEqual([2, 2]);

    const listed = await outputOf(ariadneProcess(['list', '--sweep', SWEEP, '--json'], envOf(db)));
    expect(listed.code, listed.stderr).toBe(0);
    const rows = JSON.parse(listed.stdout) as Array<{ experiment_id: string; interrupted: string | null }>;
    expect(
      rows
        .filter((x) => x.interrupted !== null)
        .map((x) => x.experiment_id)
        .sort(),
    ).toEqual(first);
    for (const x of rows.filter((y) => y.interrupted !== null))
      expect(x.interrupted).toMatch(/^SIGTERM to ariadne sweep at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);

    // run again: the interrupted runs resumed, the rest started, the marks cleared
    holdSecondTurn = false;
    const again = await outputOf(sweepOf(file, db));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`sweep ${SWEEP}: 0 already done, ${RUNS - 2} started, 2 resumed, 0 retried`);
    const after = await db.query<{ status: string; at: Date | null; reason: string | null }>(
      'SELECT status, interrupted_at AS at, interrupted_reason AS reason FROM experiments WHERE sweep_id = $1',
      [SWEEP],
    );
    expect(after.rows).toHaveLength(RUNS);
    for (const x of after.rows)
      expect(x).toEqual({ status: expect.not.stringMatching(/running|failed/), at: null, reason: null });

    // the same sweep, never stopped: the same actions, run by run
    const whole = await outputOf(sweepOf(file, undisturbed));
    expect(whole.code, whole.stderr).toBe(0);
    const expected = await actionsPerRun(undisturbed);
    expect(Object.keys(expected)).toHaveLength(RUNS);
    expect(await actionsPerRun(db)).toEqual(expected);
  }, 240_000);
});

describe("the signal's message on a terminal", () => {
  it('stays above the live block, which is drawn again under it instead of over it', () => {
    let out = '';
    const stream = {
      isTTY: true,
      columns: 120,
      write: (text: string) => {
        out += text;
        return true;
      },
    } as unknown as NodeJS.WriteStream;
    const progress: SweepProgress = {
      total: 4,
      skipped: 0,
      done: 1,
      successes: 1,
      failed: 0,
      errors: new Map(),
      running: new Map([['x', { key: 'qwen2.5:7b | medium 15 seed 3 | repeat 1', turn: 2, actions: 16 }]]),
      startedAt: Date.now(),
      databaseLostAt: null,
      databaseOutages: { count: 0, seconds: 0 },
    };
    const display = sweepProgress(stream);
    display.update(progress);
    display.done(); // drawn: two lines
    const message = '\nSIGTERM: starting no more runs, stopping each run in flight after its turn\n';
    display.note(message);
    display.update(progress);
    display.done();
    const [first, rest] = out.split('\x1b[2A\r\x1b[J');
    expect(first).toContain('done 1/4');
    expect(rest.startsWith(message)).toBe(true); // where the block was, cleared to the end
    // the block again, under the message: drawn without moving up over it
    expect(rest.slice(message.length).startsWith('\r\x1b[2Kdone 1/4')).toBe(true);
  });
});
