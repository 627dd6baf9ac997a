// A sweep with stop_when: its runs maze by maze in an order fixed by its name, a confidence sequence over the mazes'
// differences looked at before every start, the sweep stopping once it excludes 0; `stats` saying what it decided,
// which guarantee holds, and that its fixed-sample intervals are not valid after the stop.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { mazeOrder, sweepRunOrder } from '../core/sweeps/sweep-order.ts';
import { loadReport } from '../reports/report-data.ts';
import { reportHtml } from '../reports/report-page.ts';
import { openPage } from './support/browser.ts';
import { viewerSession } from './support/viewer-session.ts';
import { cli } from './support/cli.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});
const { ariadne } = cli(() => db);
const dir = tempDir('adaptive');
const seeds = Array.from({ length: 40 }, (_, i) => i + 1).join(', ');
const spec = (name: string, extra = '') => `sweep: ${name}
agents: [{ agent: frontier }, { agent: random }]
mazes: { generators: [perfect], sizes: [15], seeds: [${seeds}] }
config: { max_moves: 150 }
repeats: 2
max_concurrency: 2
stop_when: { compare: [frontier, random] }
${extra}`;

describe('stop_when: a sweep that stops when its comparison is decided', () => {
  it('runs maze by maze in the order its name fixes, each maze with every repeat before the next', () => {
    const loaded = loadSweep(spec('adaptive-order'), 'test');
    const order = sweepRunOrder('adaptive-order', loaded.runs, true);
    expect(order).toHaveLength(loaded.runs.length);
    const mazes = order.map((r) => `${r.cell.generator} ${r.cell.size} ${r.cell.seed}`);
    // 4 runs a maze (2 agents x 2 repeats) together, the mazes in mazeOrder
    for (let b = 0; b < order.length; b += 4) expect(new Set(mazes.slice(b, b + 4)).size).toBe(1);
    expect(mazes.filter((_, i) => i % 4 === 0)).toEqual(mazeOrder('adaptive-order', new Set(mazes)));
  });

  it('refuses a rule naming another agent, or a sweep that varies more than the agents', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, spec('adaptive-bad').replace('compare: [frontier, random]', 'compare: [frontier, gpt]'));
    const r = await ariadne(['sweep', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /stop_when\.compare\[1\] \(line 7\): "gpt" is not an agent of the sweep: one of frontier, random/,
    );
    writeFileSync(file, spec('adaptive-bad', 'settings: { vision_range: [2, 3] }\n'));
    const varied = await ariadne(['sweep', file]);
    expect(varied.code).toBe(2);
    expect(varied.stderr).toMatch(/the sweep may vary nothing else \(it varies vision_range\)/);
  });

  it('stops early against a clear difference, and stats says what it decided and which guarantee holds', async () => {
    const file = join(dir, 'adaptive.yaml');
    writeFileSync(file, spec('adaptive-baselines'));
    const r = await ariadne(['sweep', file, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { done: number; notStarted: number; stoppedWhen: { reason: string } };
    expect(result.stoppedWhen.reason).toMatch(/^stop_when: frontier is better after \d+ mazes$/);
    expect(r.stderr).toMatch(/sweep adaptive-baselines stopped starting runs: stop_when: frontier is better/);
    // at least 30% of the 160 runs never started; whole mazes ran (runs in flight finished theirs)
    expect(result.notStarted).toBeGreaterThanOrEqual(0.3 * 160);
    expect(result.done + result.notStarted).toBe(160);
    const stats = await ariadne(['stats', 'adaptive-baselines', '--json']);
    expect(stats.code, stats.stderr).toBe(0);
    const { sequential } = JSON.parse(stats.stdout) as {
      sequential: { decided: { better: string; atMazes: number }; mazes: number; interval: { low: number } };
    };
    expect(sequential.decided.better).toBe('frontier');
    expect(sequential.decided.atMazes).toBeGreaterThanOrEqual(6); // min_mazes
    expect(sequential.interval.low).toBeGreaterThan(0);
    const text = (await ariadne(['stats', 'adaptive-baselines'])).stdout.replace(/\s+/g, ' ');
    expect(text).toMatch(
      /stop_when decided after \d+ of 40 mazes \(\[\+\d+\.\d, \+\d+\.\d\] points\): frontier is better/,
    );
    expect(text).toContain('and the sweep stopped starting runs');
    expect(text).toContain('after a stop that looked at the data they are not valid; read the sequence');
    expect(text).toMatch(/\d+ of 160 planned runs ended/);
  });

  it('the paper table, the report and the viewer say it too, with the caveat on fixed-sample intervals', async () => {
    const md = (await ariadne(['stats', 'adaptive-baselines', '--format', 'markdown'])).stdout;
    expect(md).toMatch(/Stopped by its stop_when rule after \d+ mazes\./);
    expect(md).toContain('after a stop that looked at the data they are not valid; read the sequence');
    const data = await loadReport(db.pool, 'adaptive-baselines', {});
    expect(data.sequentialLines).toHaveLength(1);
    expect(reportHtml(data, () => null)).toMatch(/<ul class="note" id="sequential"><li>stop_when decided after \d+/);
    const { browser, viewer, close } = await viewerSession(db);
    try {
      const { page, errors } = await openPage(browser, `${viewer.url}sweeps/adaptive-baselines`);
      await page.waitForFunction(() => (window as any).__viewer?.ready);
      await page.waitForSelector('#sequential');
      expect(await page.textContent('#sequential')).toMatch(/stop_when decided after \d+ of 40 mazes/);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);
});
