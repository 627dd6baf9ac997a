// Ctrl-C during `ariadne run` (the turn in flight commits, the run is marked interrupted, the command says how to
// resume it), and `ariadne run --set key=value`, through the real CLI.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { ariadneProcess, cli, outputOf } from './support/cli.ts';
import { startHoldingProxy, type HoldingProxy } from './support/holding-proxy.ts';

let db: TestDatabase;
const sim = new OllamaSim();
let proxy: HoldingProxy;
let proxyUrl = '';
let simUrl = '';
/** The proxy holds the model call with this number (1-based) until it is released; 0 holds none. */
let holdAt = 0;
let chats = 0;
let held: Promise<void> = Promise.resolve();
let onHeld = () => {};

beforeAll(async () => {
  db = await testDatabase();
  // in front of the simulated model: a turn's model call can be kept in flight while the test presses Ctrl-C
  simUrl = await sim.listen();
  proxy = await startHoldingProxy(
    simUrl,
    (path) => path === '/api/chat' && ++chats === holdAt,
    () => onHeld(),
  );
  proxyUrl = proxy.url;
});
afterAll(async () => {
  await proxy.close();
  await sim.close();
  await db.drop();
});

const { ariadne, expectInputError } = cli(() => db);
/** Hints as an installed `ariadne` prints them (tests run under `npm test`, which sets npm's variables). */
const INSTALLED = { npm_lifecycle_event: '', npm_package_name: '' };

describe('Ctrl-C during ariadne run', () => {
  it('lets the turn in flight commit, marks the run interrupted, says how to resume; resume finishes it', async () => {
    chats = 0;
    holdAt = 3; // after the preflight's model check and a turn or two: a turn's model call
    held = new Promise<void>((resolve) => (onHeld = resolve));
    const child = ariadneProcess(
      [
        'run',
        ...['--provider', 'ollama', '--model', 'qwen2.5:7b', '--ollama-host', proxyUrl],
        ...['--maze', 'medium', '--size', '15', '--seed', '3', '--max-moves', '60', '--quiet'],
      ],
      { DATABASE_URL: db.url, DATABASE_SCHEMA: db.schema, ...INSTALLED },
    );
    const ended = outputOf(child);
    let stderr = '';
    const said = new Promise<void>((resolve) =>
      child.stderr.on('data', (d) => {
        stderr += d;
        if (stderr.includes('stopping after the turn in flight')) resolve();
      }),
    );
    await held; // a turn's model call is in flight
    const before = await db.query<{ turns: number }>(
      "SELECT turns_completed AS turns FROM experiments WHERE status = 'running'",
    );
    expect(before.rows).toHaveLength(1);
    const inFlight = before.rows[0].turns + 1;
    child.kill('SIGINT');
    await said;
    proxy.releaseAll(); // turn 2 answers, and commits
    const r = await ended;
    expect(r.stderr).toMatch(/Ctrl-C: stopping after the turn in flight; Ctrl-C again exits at once/);
    const m =
      /experiment (\S+) interrupted after turn (\d+) of 5000, its log kept; resume with: ariadne resume (\S+)/.exec(
        r.stderr,
      );
    expect(m, r.stderr).not.toBeNull();
    const id = m![1];
    expect(m![3]).toBe(id);
    expect(Number(m![2])).toBe(inFlight); // the turn in flight committed, and no other started
    expect(r.code).toBe(130);
    expect(r.stdout).toBe(''); // no summary: the run did not end

    const marked = await db.query<{ status: string; reason: string; at: Date | null; turns: number }>(
      `SELECT status, interrupted_reason AS reason, interrupted_at AS at, turns_completed AS turns
       FROM experiments WHERE id = $1`,
      [id],
    );
    expect(marked.rows).toEqual([
      { status: 'running', reason: 'Ctrl-C (SIGINT) to ariadne run', at: expect.any(Date), turns: inFlight },
    ]);
    const turns = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM turns WHERE experiment_id = $1', [id]);
    expect(turns.rows[0].n).toBe(inFlight);

    // shown at once, with the command that resumes it, not STALE
    const listed = await ariadne(['list', '--json']);
    expect(listed.code).toBe(0);
    const row = (JSON.parse(listed.stdout) as Array<{ experiment_id: string; interrupted: string | null }>).find(
      (x) => x.experiment_id === id,
    );
    expect(row?.interrupted).toMatch(/^Ctrl-C \(SIGINT\) to ariadne run at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    const status = await ariadne(['status', '--wide'], INSTALLED);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/1 experiment\(s\) running, 1 interrupted \(resumable\)/);
    expect(status.stdout).not.toMatch(/STALE/);
    expect(status.stdout.replace(/\n\s+/g, ' ')).toContain(
      `INTERRUPTED ${id}: Ctrl-C (SIGINT) to ariadne run at ${row!.interrupted!.split(' at ')[1]}; ` +
        `resume with: ariadne resume ${id}`,
    );

    holdAt = 0;
    // resume checks the provider as run does, and may move the run to another host, recorded in its config
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const closed = `http://127.0.0.1:${(probe.address() as { port: number }).port}`;
    await new Promise((r) => probe.close(r));
    const down = await ariadne(['resume', id, '--ollama-host', closed]);
    expect(down.code, down.stderr).toBe(3);
    expect(down.stderr).toMatch(new RegExp(`cannot reach Ollama at --ollama-host ${closed} \\(ECONNREFUSED\\)`));
    const wrong = await ariadne(['resume', id, '--openai-base-url', `${simUrl}/v1`]);
    expect(wrong.code, wrong.stderr).toBe(2);
    expect(wrong.stderr).toMatch(/--openai-base-url is for an openai run; this experiment's agent is ollama/);
    const stored = () =>
      db.query<{ host: string; at: Date | null }>(
        "SELECT config #>> '{ollama,host}' AS host, interrupted_at AS at FROM experiments WHERE id = $1",
        [id],
      );
    expect((await stored()).rows).toEqual([{ host: proxyUrl, at: expect.any(Date) }]); // refused: nothing changed
    const resumed = await ariadne(['resume', id, '--json', '--ollama-host', simUrl]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await stored()).rows).toEqual([{ host: simUrl, at: null }]);
    const summary = JSON.parse(resumed.stdout) as { status: string; turns: number };
    expect(summary.status).not.toBe('running');
    expect(summary.turns).toBeGreaterThan(2);
    const cleared = await db.query<{ at: Date | null; reason: string | null }>(
      'SELECT interrupted_at AS at, interrupted_reason AS reason FROM experiments WHERE id = $1',
      [id],
    );
    expect(cleared.rows).toEqual([{ at: null, reason: null }]);
  });
});

describe('ariadne run --set key=value', () => {
  it('sets any setting, dotted for a section, values read as YAML, and stores it with the run', async () => {
    const r = await ariadne([
      'run',
      ...['--agent', 'frontier', '--maze', 'spiral', '--size', '15', '--seed', '3', '--json'],
      ...['--set', 'vision_range=4', '--set', 'stuck_thresholds.idle_turns=5', '--set', 'success_rule=reached'],
      ...['--set', 'see_through=false', '--set', 'max_duration_minutes=0.5'],
    ]);
    expect(r.code, r.stderr).toBe(0);
    const id = (JSON.parse(r.stdout) as { experiment_id: string }).experiment_id;
    const { rows } = await db.query<{ config: Record<string, unknown> & { stuck_thresholds: object } }>(
      'SELECT config FROM experiments WHERE id = $1',
      [id],
    );
    expect(rows[0].config).toMatchObject({
      vision_range: 4,
      success_rule: 'reached',
      see_through: false,
      max_duration_minutes: 0.5,
      stuck_thresholds: { idle_turns: 5 },
    });
  });

  it.each([
    [
      ['vison_range=4'],
      /--set vison_range: no experiment setting is called "vison_range"; did you mean: vision_range\?/,
    ],
    [['ollama.nmu_ctx=4'], /did you mean: ollama\.num_ctx\?/],
    [['vision_range=abc'], /--set vision_range=abc: vision_range: .*expected number.*\(got "abc"\)/],
    [['stuck_thresholds.idle_turns=0'], /--set stuck_thresholds\.idle_turns=0: stuck_thresholds\.idle_turns: .*>=1/],
    [['vision_range'], /--set "vision_range" is not key=value/],
    [['vision_range='], /--set vision_range= has no value/],
    [['vision_range=4', 'vision_range=5'], /--set vision_range=4 and --set vision_range=5 both set vision_range/],
  ])('refuses --set %j, naming the key, the value and what is expected', (sets, message) =>
    expectInputError(['run', ...sets.flatMap((s) => ['--set', s])], message),
  );

  it("refuses a --set and the same setting's own flag together, naming both", () =>
    expectInputError(
      ['run', '--vision-range', '3', '--set', 'vision_range=4'],
      /--set vision_range=4 and --vision-range both set vision_range; drop one/,
    ));
});
