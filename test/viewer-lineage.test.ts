// The viewer shows a run's lineage (the flight recorder's replays and forks) in headless Chromium: a recorded run
// against the OpenAI-compatible simulator, a replay of it and a fork of it link to one another on their pages and in
// the list, replayed calls are marked "replayed", a fork's page marks its fork point, and a plain run shows none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { OpenAISim } from '../simulators/openai-sim.ts';
import { overDataApi } from '../simulators/rds-data-sim.ts';
import { loadTurns } from '../results/experiment-turns.ts';
import { runLineage } from '../results/run-lineage.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import type { RunningViewer } from '../viewer/server.ts';
import { openPage, screenshotPath } from './support/browser.ts';
import { cli } from './support/cli.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { viewerSession } from './support/viewer-session.ts';

let db: TestDatabase;
let browser: Browser;
let viewer: RunningViewer;
let close: (() => Promise<void>) | undefined;
const sim = new OpenAISim();
const { ariadne } = cli(() => db);
/** The recorded run, its replay, its fork and the fork's step, a plain baseline run, and a run with no record. */
const runs = { original: '', replay: '', fork: '', forkStep: 0, plain: '', unrecorded: '', cached: '' };

const idOf = async (sql: string, values: unknown[] = []) =>
  (await db.pool.query<{ id: string }>(sql, values)).rows[0].id;

/** A run of the simulator's model on a small maze; its id. */
async function recordedRun(base: string, ...more: string[]): Promise<string> {
  const args = ['run', '--provider', 'openai', '--model', 'gpt-4.1-mini', '--openai-base-url', base, ...more];
  const r = await ariadne([...args, '--maze', 'medium', '--size', '11', '--seed', '4', '--max-moves', '60'], {
    OPENAI_API_KEY: 'sk-test',
  });
  expect(r.code, r.stderr).toBe(0);
  return idOf("SELECT id FROM experiments WHERE agent = 'openai' ORDER BY started_at DESC LIMIT 1");
}

/** The last step of the turn that holds `near`: a fork there starts its own next turn. */
const turnEnd = async (id: string, near: number) =>
  (
    await db.pool.query<{ k: number }>(
      `SELECT max(step_number)::int AS k FROM actions WHERE experiment_id = $1 AND turn_number =
         (SELECT turn_number FROM actions WHERE experiment_id = $1 AND step_number = $2)`,
      [id, near],
    )
  ).rows[0].k;

beforeAll(async () => {
  db = await testDatabase();
  const base = `${await sim.listen()}/v1`;
  runs.original = await recordedRun(base);
  runs.forkStep = await turnEnd(runs.original, 20);
  const fork = await ariadne(['fork', runs.original, '--at-step', String(runs.forkStep)], {
    OPENAI_API_KEY: 'sk-test',
  });
  expect(fork.code, fork.stderr).toBe(0);
  const replay = await ariadne(['rerun', runs.original, '--replay']);
  expect(replay.code, replay.stderr).toBe(0);
  runs.fork = await idOf('SELECT id FROM experiments WHERE forked_from = $1', [runs.original]);
  runs.replay = await idOf('SELECT id FROM experiments WHERE replay_of = $1', [runs.original]);
  // a run whose calls were made before the flight recorder: no exchange rows
  runs.unrecorded = await recordedRun(base);
  await db.pool.query('DELETE FROM model_exchanges WHERE experiment_id = $1', [runs.unrecorded]);
  // a run without a seed in its requests, then the same requests again, answered by config.cache from its record
  await recordedRun(base, '--set', 'model_seed=none');
  runs.cached = await recordedRun(base, '--set', 'model_seed=none', '--cache', 'all');
  const plain = await runLocalExperiment(
    { agent: 'random', agentSeed: 1, maze: { generator: 'medium', size: 11, seed: 4 }, config: { max_moves: 40 } },
    { db },
  );
  runs.plain = plain.experimentId!;
  await sim.close();
  ({ browser, viewer, close } = await viewerSession(db));
}, 180_000);

afterAll(async () => {
  await sim.close().catch(() => undefined);
  await close?.();
});

/** An experiment's page, drawn, at `step` (its first turn when none). */
async function experimentPage(id: string, step?: number): Promise<{ page: Page; errors: string[] }> {
  const opened = await openPage(
    browser,
    `${viewer.url}experiments/${encodeURIComponent(id)}${step ? `?step=${step}` : ''}`,
  );
  await opened.page.waitForFunction(() => (window as any).__viewer?.ready);
  await opened.page.waitForSelector('#turn-detail .turn-summary');
  return opened;
}

const lineageOf = (page: Page) =>
  page.$$eval('#headline .lineage > div', (lines) =>
    lines.map((l) => ({
      text: l.textContent ?? '',
      links: Array.from(l.querySelectorAll('a.id')).map((a) => ({
        text: a.textContent,
        href: a.getAttribute('href'),
      })),
    })),
  );
const callMarks = (page: Page) =>
  page.$$eval('#turn-detail .call-head', (heads) => heads.map((h) => h.querySelector('b.replayed')?.textContent ?? ''));

describe("an experiment's lineage", () => {
  it('a run config.cache answered marks each call cached', async () => {
    const { page, errors } = await experimentPage(runs.cached);
    const marks = await callMarks(page);
    expect(marks.length).toBeGreaterThan(0);
    expect(marks.every((m) => m === ' cached')).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a fork links its parent at the fork step, marks the fork point and its replayed calls', async () => {
    const { forkStep: k } = runs;
    const { page, errors } = await experimentPage(runs.fork, k);
    expect(await lineageOf(page)).toEqual([
      {
        text:
          `FORK forked from ${runs.original} after step ${k} ` +
          `(its steps up to ${k} are the parent's) · compare the two`,
        links: [{ text: runs.original, href: `/experiments/${runs.original}?step=${k}` }],
      },
    ]);
    expect(await page.textContent('#fork-note')).toBe(
      `fork point: steps up to ${k} are the parent's (${runs.original}), the rest its own`,
    );
    // the turn of step k is the parent's, answered from its record; the fork point follows its last step
    expect(await page.$$eval('#turn-detail tr.fork-point', (rows) => rows.map((r) => r.textContent))).toEqual([
      `fork point: steps up to ${k} are the parent's, the rest this run's own`,
    ]);
    const marks = await callMarks(page);
    expect(marks.length).toBeGreaterThan(0);
    expect(marks.every((m) => m === ' replayed')).toBe(true);
    expect(
      await page.$eval('#turn-detail tr.fork-point', (r) => r.previousElementSibling?.getAttribute('data-step')),
    ).toBe(String(k));
    await page.screenshot({ path: screenshotPath('viewer-lineage-fork.png'), fullPage: true });
    // the fork beside its parent: one maze, two paths
    await page.click('#headline .lineage a.compare');
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    expect(await page.evaluate(() => (window as any).__viewer.paths)).toBe(2);
    expect(new URL(page.url()).searchParams.get('ids')).toBe(`${runs.original},${runs.fork}`);
    await page.goBack();
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    // the fork's own turns, after the fork point: its model answered them
    await page.evaluate((s) => (window as any).__viewer.go(s), k + 1);
    await page.waitForSelector(`#turn-detail tr.current[data-step="${k + 1}"]`);
    const own = await callMarks(page);
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((m) => m === '')).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a replay links the run it replays, and each of its calls is marked replayed', async () => {
    const { page, errors } = await experimentPage(runs.replay);
    expect(await lineageOf(page)).toEqual([
      {
        text: `REPLAY of ${runs.original} (its model calls answered from the recorded replies) · compare the two`,
        links: [{ text: runs.original, href: `/experiments/${runs.original}` }],
      },
    ]);
    expect(await page.$('#fork-note')).toBeNull();
    const marks = await callMarks(page);
    expect(marks.length).toBeGreaterThan(0);
    expect(marks.every((m) => m === ' replayed')).toBe(true);
    expect(await page.getAttribute('#turn-detail b.replayed', 'title')).toBe(
      `answered from the recorded reply of ${runs.original}, not by the model`,
    );
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the recorded run lists its replay and its fork with its step, and its model answered its calls', async () => {
    const { page, errors } = await experimentPage(runs.original);
    expect(await lineageOf(page)).toEqual([
      { text: `replayed as ${runs.replay}`, links: [{ text: runs.replay, href: `/experiments/${runs.replay}` }] },
      {
        text: `forked as ${runs.fork} after step ${runs.forkStep}`,
        links: [{ text: runs.fork, href: `/experiments/${runs.fork}?step=${runs.forkStep}` }],
      },
    ]);
    const marks = await callMarks(page);
    expect(marks.length).toBeGreaterThan(0);
    expect(marks.every((m) => m === '')).toBe(true);
    await page.screenshot({ path: screenshotPath('viewer-lineage-original.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a plain run, and a run with no record of its calls, show no lineage and no mark', async () => {
    for (const id of [runs.plain, runs.unrecorded]) {
      const { page, errors } = await experimentPage(id);
      expect(await page.$('#headline .lineage')).toBeNull();
      expect(await page.$('#fork-note')).toBeNull();
      expect(await page.$('#turn-detail b.replayed')).toBeNull();
      expect(errors).toEqual([]);
      await page.close();
    }
    const turns = (await (await fetch(`${viewer.url}api/experiments/${runs.unrecorded}/turns`)).json()) as {
      turns: Array<{ calls: Array<{ answered_by: unknown }> }>;
    };
    const calls = turns.turns.flatMap((t) => t.calls);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => c.answered_by === null)).toBe(true);
  });
});

describe('the experiments list', () => {
  it('marks a replay and a fork with the run they come from (and the fork step), and no other run', async () => {
    const { page, errors } = await openPage(browser, viewer.url);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    const marks = await page.$$eval('#experiments tbody tr', (trs) =>
      trs.map((tr) => ({
        id: tr.getAttribute('data-id'),
        flags: Array.from(tr.querySelectorAll('.flag.lineage')).map((f) => f.textContent),
        why: Array.from(tr.querySelectorAll('.why.lineage')).map((w) => w.textContent),
        links: Array.from(tr.querySelectorAll('.why.lineage a.id')).map((a) => a.getAttribute('href')),
      })),
    );
    const of = (id: string) => marks.find((m) => m.id === id);
    expect(of(runs.replay)).toMatchObject({
      flags: [' REPLAY'],
      why: [`of ${runs.original}`],
      links: [`/experiments/${runs.original}`],
    });
    expect(of(runs.fork)).toMatchObject({
      flags: [' FORK'],
      why: [`of ${runs.original} @${runs.forkStep}`],
      links: [`/experiments/${runs.original}`],
    });
    for (const id of [runs.original, runs.plain, runs.unrecorded]) expect(of(id)).toMatchObject({ flags: [], why: [] });
    await page.screenshot({ path: screenshotPath('viewer-lineage-list.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('fits a 1024 px screen with the marks, as the list and the pages do without them', async () => {
    const page = await browser.newPage({ viewport: { width: 1024, height: 768 } });
    for (const path of ['', `experiments/${runs.fork}`, `experiments/${runs.original}`]) {
      await page.goto(`${viewer.url}${path}`);
      await page.waitForFunction(() => (window as any).__viewer?.ready);
      const { scroll, client } = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }));
      expect(scroll, `${path || 'the list'} scrolls sideways`).toBeLessThanOrEqual(client);
    }
    await page.screenshot({ path: screenshotPath('viewer-lineage-1024.png') });
    await page.goto(viewer.url);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    await page.screenshot({ path: screenshotPath('viewer-lineage-list-1024.png') });
    await page.close();
  });
});

describe('over the RDS Data API (ariadne view --aws)', () => {
  it('reads the same lineage and the same answered_by of each call as over pg', async () => {
    const api = await overDataApi(db, { url: db.url });
    try {
      for (const id of [runs.original, runs.replay, runs.fork, runs.plain]) {
        expect(await runLineage(api, id)).toEqual(await runLineage(db, id));
        const marks = async (over: typeof db | typeof api) =>
          (await loadTurns(over, id, 1, 20)).flatMap((t) => t.calls.map((c) => c.answered_by));
        expect(await marks(api)).toEqual(await marks(db));
      }
      expect(await runLineage(api, runs.fork)).toEqual({
        replay_of: null,
        forked_from: runs.original,
        fork_step: runs.forkStep,
        replays: [],
        forks: [],
      });
    } finally {
      await api.sim.close();
    }
  });
});

describe('a lineage that grows after the run finished', () => {
  it('shows a replay made after the run was read, though the run itself is kept by its last change', async () => {
    const lineage = async () =>
      (
        (await (await fetch(`${viewer.url}api/experiments/${runs.original}`)).json()) as {
          lineage: { replays: string[] };
        }
      ).lineage.replays;
    expect(await lineage()).toEqual([runs.replay]);
    const again = await ariadne(['rerun', runs.original, '--replay', '--experiment-id', 'replay-later']);
    expect(again.code, again.stderr).toBe(0);
    expect(await lineage()).toEqual([runs.replay, 'replay-later']);
  });
});
