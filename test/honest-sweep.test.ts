// One sweep that goes wrong in every way a published table must not hide: an outage inside a turn (the provider
// answers, then stays down past the run's wait: the run ends as an outage, its answered calls kept), a budget that
// cuts the sweep short (runs not started, the run in flight stopped at its next call), prompts the server cut to its
// window, and the file run again after the failure (the failed run retried). What the statistics, the stats command
// and the paper table then say is checked against what the server answered, counted at the server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { STATES } from '../core/machine/states.ts';
import { sweepStatistics } from '../reports/sweep-statistics.ts';
import { loadReport } from '../reports/report-data.ts';
import { reportHtml } from '../reports/report-page.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import type { Fault } from '../simulators/sim-server.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { ariadneProcess, outputOf } from './support/cli.ts';

/** Counts 4 tokens for each the guard estimates (so prompts reach num_ctx and are cut), and goes down on cue. */
class FlakyServer extends OllamaSim {
  /** Once this many replies were answered, every request is refused 503 while `down`: an outage. */
  downAfter = Infinity;
  down = true;
  protected override nextFault(): Fault | null {
    if (this.replies.length >= this.downAfter && this.down) return { kind: 'status', status: 503 };
    return super.nextFault();
  }
}

const MODELS = ['honest-a:1b', 'honest-b:1b'];
const PRICE = { input_per_mtok: 1, output_per_mtok: 5 };
const RETRY = { max_attempts: 2, base_delay_ms: 1, max_delay_ms: 2, timeout_ms: 5000 };
const sim = new FlakyServer({ models: MODELS, tokenScale: 4 });
let db: TestDatabase;
let url = '';

beforeAll(async () => {
  [db, url] = await Promise.all([testDatabase(), sim.listen()]);
});
afterAll(async () => {
  await Promise.all([db.drop(), sim.close()]);
});

const SWEEP = 'honest-e2e';
const spec = (maxTokens: number) =>
  loadSweep(
    `sweep: ${SWEEP}
agents:
  - { agent: ollama, model: "${MODELS[0]}", label: a }
  - { agent: ollama, model: "${MODELS[1]}", label: b }
mazes: { generators: [medium], sizes: [11], seeds: [1, 2, 3] }
config:
  max_moves: 24
  max_actions_per_turn: 3
  max_output_tokens: 128
  provider_outage_wait_minutes: 0
  ollama: { host: "${url}", num_ctx: 2048 }
  retry: ${JSON.stringify(RETRY)}
  prices: { "${MODELS[0]}": ${JSON.stringify(PRICE)}, "${MODELS[1]}": ${JSON.stringify(PRICE)} }
max_concurrency: 1
budget: { max_tokens: ${maxTokens} }
`,
    'test',
  );
const run = (maxTokens: number) =>
  runLocalSweep(spec(maxTokens), {
    db,
    retryIntervals: { [STATES.InvokeOllamaAgent]: 0 },
    waitIntervals: { [STATES.OutageWait]: 0 },
    // the provider is back once a run has ended for its outage
    onProgress: (p) => {
      if (p.failed > 0) sim.down = false;
    },
  });

/** What the server answered: calls, tokens (prompt as it counted it, and output) and their cost at PRICE. */
function served() {
  const input = sim.replies.reduce((n, r) => n + r.inputTokens, 0);
  const output = sim.replies.reduce((n, r) => n + r.outputTokens, 0);
  return { calls: sim.replies.length, tokens: input + output, cost: (input * PRICE.input_per_mtok + output * 5) / 1e6 };
}

const env = () => ({ DATABASE_URL: db.url, DATABASE_SCHEMA: db.schema });

describe('a sweep with an outage inside a turn, a budget cut, cut prompts and a rerun', () => {
  let firstPass = { calls: 0, tokens: 0, cost: 0 };

  beforeAll(async () => {
    // the first run is answered 4 calls, then the provider is down for both tries of the next: an outage
    sim.downAfter = 4;
    // each call is some 2,100 tokens (the prompt cut at 2,048): the budget runs out in the second run
    const first = await run(12_000);
    expect(first).toMatchObject({ failed: 1 });
    firstPass = served();
    // run again with room for a little more: the failed run is retried first (the order is the sweep's own), and
    // stopped by the budget at its next call
    await run(firstPass.tokens + 1);
  }, 180_000);

  it('counts every answered call of every attempt, as the server answered them', async () => {
    const s = await sweepStatistics(db, SWEEP, { by: ['label'] });
    const all = served();
    expect(all.calls).toBeGreaterThan(firstPass.calls);
    expect(s.groups.reduce((n, g) => n + g.tokens, 0)).toBe(all.tokens);
    expect(s.groups.reduce((n, g) => n + (g.costUsd ?? NaN), 0)).toBeCloseTo(all.cost, 9);
    // six runs planned; the retried run has two attempts, the first of which ended in the outage
    const attempts = s.groups.reduce((n, g) => n + g.attempts, 0);
    expect(attempts).toBe(s.groups.reduce((n, g) => n + g.runs, 0) + 1);
    expect(s.groups.reduce((n, g) => n + g.erroredAttempts, 0)).toBe(1);
    expect(s.groups.flatMap((g) => g.attemptErrorReasons.map((e) => e.reason)).join(' ')).toMatch(
      /the provider stayed unavailable/,
    );
    // both budget stops are token-budget stops, never a navigation failure dressed as a move limit
    expect(s.groups.reduce((n, g) => n + g.stopReasons.token_budget, 0)).toBe(2);
    // every prompt of every run was cut to num_ctx: counted per group
    expect(s.groups.reduce((n, g) => n + g.promptTruncatedRuns, 0)).toBe(s.groups.reduce((n, g) => n + g.runs, 0));
  });

  it('ariadne stats prints the attempts, how runs ended, the cut prompts and the missing cells', async () => {
    const table = await outputOf(ariadneProcess(['stats', SWEEP, '--by', 'label', '--wide'], env()));
    expect(table.code, table.stderr).toBe(0);
    const text = table.stdout.replace(/\s+/g, ' ');
    expect(text).toMatch(/Incomplete: 2 of 6 planned runs ended \(4 not started\)/);
    expect(text.match(/missing: cell \d+ [ab] \| medium 11 seed \d: repeat 1 \(not started\)/g)).toHaveLength(4);
    expect(text).toMatch(/how runs ended: .*token budget 1/);
    expect(text).toMatch(
      /1 attempt ended in error, 1 of them retried to a finished run: .*provider stayed unavailable/,
    );
    expect(text).toMatch(/2 runs had a prompt cut to the server's context window/);
    const json = JSON.parse(
      (await outputOf(ariadneProcess(['stats', SWEEP, '--by', 'label', '--json'], env()))).stdout,
    ) as {
      plan: { planned: number; ended: number; not_started: number; missing_cells: unknown[] };
      groups: Array<{ attempts: number; tokens: number; stop_reasons: Record<string, number> }>;
    };
    expect(json.plan).toMatchObject({ planned: 6, ended: 2, not_started: 4 });
    expect(json.plan.missing_cells).toHaveLength(4);
    expect(json.groups.reduce((n, g) => n + g.tokens, 0)).toBe(served().tokens);
    expect(json.groups.reduce((n, g) => n + g.stop_reasons.token_budget, 0)).toBe(2);
  });

  it('the paper table says it is incomplete, what ended how, and that prompts were cut', async () => {
    const md = await outputOf(ariadneProcess(['stats', SWEEP, '--by', 'label', '--format', 'markdown'], env()));
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain('(incomplete: 2 of 6 planned runs)');
    expect(md.stdout).toMatch(/How the runs ended: token budget 2\./);
    expect(md.stdout).toMatch(/Attempts: 3 for 2 runs; 1 ended in error \(1 of them retried to a finished run\)/);
    expect(md.stdout).toMatch(/had a prompt cut to the server's context window/);
  });
});

describe('an agent that never succeeds', () => {
  it('has an SPL of 0 whose interval is the success rate’s, not [0, 0]', async () => {
    const never = loadSweep(
      `sweep: honest-never
agents: [{ agent: random }]
mazes: { generators: [medium], sizes: [11], seeds: [1, 2, 3, 4] }
config: { max_moves: 2 }
repeats: 2
`,
      'test',
    );
    await runLocalSweep(never, { db });
    const [g] = (await sweepStatistics(db, 'honest-never', { by: ['label'] })).groups;
    expect([g.success.rate, g.spl.mean, g.mazes]).toEqual([0, 0, 4]);
    expect(g.spl.interval).toEqual(g.success.maze);
    expect(g.spl.interval.high).toBeGreaterThan(0);
  });
});

describe('runs stopped by the wall clock', () => {
  it('are counted apart, in no denominator, and named in the report, never as navigation failures', async () => {
    // every reply takes 0.4 s and the run may take 0.6 s: it ends by the clock after a move or two
    const slow = new OllamaSim({ models: [MODELS[0]], faults: [], always: { kind: 'slow', ms: 400 } });
    const slowUrl = await slow.listen();
    try {
      const clock = loadSweep(
        `sweep: honest-clock
agents: [{ agent: ollama, model: "${MODELS[0]}", label: a }]
mazes: { generators: [medium], sizes: [21], seeds: [1, 2] }
config:
  max_moves: 200
  max_actions_per_turn: 1
  max_duration_minutes: 0.01
  success_rule: reached
  ollama: { host: "${slowUrl}" }
  retry: ${JSON.stringify(RETRY)}
`,
        'test',
      );
      await runLocalSweep(clock, { db, retryIntervals: { [STATES.InvokeOllamaAgent]: 0 } });
    } finally {
      await slow.close();
    }
    const { rows } = await db.query<{ outcome_class: string; stop_reason: string }>(
      "SELECT outcome_class, stop_reason FROM sweep_runs WHERE sweep_id = 'honest-clock'",
    );
    expect(rows).toEqual([
      { outcome_class: 'wall_clock', stop_reason: 'max_duration' },
      { outcome_class: 'wall_clock', stop_reason: 'max_duration' },
    ]);
    const [g] = (await sweepStatistics(db, 'honest-clock', { by: ['label'] })).groups;
    expect(g).toMatchObject({ runs: 2, n: 0, independent: 0, errors: 0, wallClock: 2 });
    expect(g.stopReasons.wall_clock).toBe(2);
    expect(g.success.rate).toBeNull();
    // had they failed: 0 of 2, the sensitivity row
    expect(g.ifErrorsFailed.rate).toBe(0);
    const html = reportHtml(await loadReport(db, 'honest-clock'), () => null);
    expect(html).toContain('2 runs recorded (0 succeeded, 0 failed, 0 ended by an error, 2 stopped by the wall clock');
    expect(html.match(/<table id="wall-clock">[\s\S]*?<\/table>/)?.[0].match(/<tr>/g)).toHaveLength(3);
    expect(html).toMatch(/<p id="failures">none<\/p>/);
  });
});
