// Every attempt of a retried run counted: a sweep whose run fails is run again, the retry finishes, and the
// statistics keep the failed attempt's error (notes and the sensitivity rate) and what it spent (tokens, cost), as
// the server answered them. Through the local sweep runner, the read model and the stats command.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { STATES } from '../core/machine/states.ts';
import { sweepStatistics } from '../reports/sweep-statistics.ts';
import { loadReport } from '../reports/report-data.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import type { Fault } from '../simulators/sim-server.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { ariadneProcess, outputOf } from './support/cli.ts';

/** Fails every call to the model `failing` once it has answered `after` of them (a permanent error: 400). */
class FailsOneModel extends OllamaSim {
  failing: string | null = null;
  after = 0;
  private asked = '';
  protected override admit(model: string, inputTokens: number): ReturnType<OllamaSim['admit']> {
    this.asked = model;
    return super.admit(model, inputTokens);
  }
  protected override nextFault(): Fault | null {
    const answered = this.replies.filter((r) => r.model === this.failing).length;
    return this.asked === this.failing && answered >= this.after ? { kind: 'status', status: 400 } : super.nextFault();
  }
}

const GOOD = 'attempt-good:1b';
const BAD = 'attempt-bad:1b';
const PRICE = { input_per_mtok: 2, output_per_mtok: 10 };
const sim = new FailsOneModel({ models: [GOOD, BAD] });
let db: TestDatabase;
let url = '';

beforeAll(async () => {
  [db, url] = await Promise.all([testDatabase(), sim.listen()]);
});
afterAll(async () => {
  await Promise.all([db.drop(), sim.close()]);
});

/** What the server answered for a model: tokens and their cost at PRICE. */
function served(model: string, first = 0) {
  const replies = sim.replies.filter((r) => r.model === model).slice(first);
  const input = replies.reduce((n, r) => n + r.inputTokens, 0);
  const output = replies.reduce((n, r) => n + r.outputTokens, 0);
  return { calls: replies.length, tokens: input + output, cost: (input * PRICE.input_per_mtok + output * 10) / 1e6 };
}

describe('a sweep run again after a run failed', () => {
  const file = () =>
    loadSweep(
      `sweep: attempt-test
agents:
  - { agent: ollama, model: "${GOOD}" }
  - { agent: ollama, model: "${BAD}" }
mazes: { generators: [medium], sizes: [11], seeds: [3] }
config:
  max_moves: 80
  max_actions_per_turn: 3
  ollama: { host: "${url}" }
  retry: { max_attempts: 2, base_delay_ms: 1, timeout_ms: 5000 }
  prices: { "${GOOD}": ${JSON.stringify(PRICE)}, "${BAD}": ${JSON.stringify(PRICE)} }
max_concurrency: 2
`,
      'test',
    );
  const run = () => runLocalSweep(file(), { db, retryIntervals: { [STATES.InvokeOllamaAgent]: 0 } });
  let retryFrom = 0;

  beforeAll(async () => {
    // the bad model answers 4 calls, then refuses every call: its run ends in error, with calls answered
    sim.failing = BAD;
    sim.after = 4;
    expect(await run()).toMatchObject({ done: 2, failed: 1 });
    sim.failing = null;
    retryFrom = served(BAD).calls;
    expect(retryFrom).toBe(4); // the failed attempt was answered 4 calls: its spend counts too
    expect(await run()).toMatchObject({ failed: 0 });
  }, 120_000);

  it('the statistics keep the error and count every attempt, its tokens and cost as the server answered', async () => {
    const s = await sweepStatistics(db, 'attempt-test', { by: ['model'] });
    const bad = s.groups.find((g) => g.factors.model === BAD)!;
    const good = s.groups.find((g) => g.factors.model === GOOD)!;
    expect(s.groups.reduce((n, g) => n + g.attempts, 0)).toBe(s.groups.reduce((n, g) => n + g.runs, 0) + 1);
    expect(bad).toMatchObject({ runs: 1, attempts: 2, errors: 0, erroredAttempts: 1, retriedErrors: 1, n: 1 });
    expect(bad.attemptErrorReasons).toEqual([{ reason: expect.stringMatching(/400/) as unknown, attempts: 1 }]);
    // the retry found the goal; the run counts as a failure in the sensitivity rate all the same
    expect(bad.success.rate).toBe(1);
    expect(bad.ifErrorsFailed.rate).toBe(0);
    expect(bad.tokens).toBe(served(BAD).tokens);
    expect(bad.costUsd).toBeCloseTo(served(BAD).cost, 9);
    // per run: the latest attempt's tokens
    expect(bad.tokensPerExperiment).toBe(served(BAD, retryFrom).tokens);
    expect(good).toMatchObject({ runs: 1, attempts: 1, erroredAttempts: 0, tokens: served(GOOD).tokens });
    expect(good.costUsd).toBeCloseTo(served(GOOD).cost, 9);
    // the sweep report's cost is every attempt's too
    const report = await loadReport(db, 'attempt-test');
    expect(report.cost.usd).toBeCloseTo(served(BAD).cost + served(GOOD).cost, 9);
  });

  it('ariadne stats --json carries attempts and tokens; the table notes the error', async () => {
    const env = { DATABASE_URL: db.url, DATABASE_SCHEMA: db.schema };
    const json = await outputOf(ariadneProcess(['stats', 'attempt-test', '--by', 'model', '--json'], env));
    expect(json.code).toBe(0);
    const out = JSON.parse(json.stdout) as {
      groups: Array<{ factors: { model: string }; attempts: number; tokens: number }>;
      rows: Array<{ model: string; attempts: number; tokens: number; errored_attempts: number }>;
    };
    expect(out.groups.map((g) => [g.factors.model, g.attempts, g.tokens])).toEqual([
      [BAD, 2, served(BAD).tokens],
      [GOOD, 1, served(GOOD).tokens],
    ]);
    expect(out.rows.map((r) => [r.model, r.attempts, r.errored_attempts])).toEqual([
      [BAD, 2, 1],
      [GOOD, 1, 0],
    ]);
    const table = await outputOf(ariadneProcess(['stats', 'attempt-test', '--by', 'model', '--wide'], env));
    expect(table.code).toBe(0);
    expect(table.stdout.replace(/\s+/g, ' ')).toMatch(
      new RegExp(`${BAD}: 1 attempt ended in error, 1 of them retried to a finished run: .*400.* \\(1\\)`),
    );
  });
});
