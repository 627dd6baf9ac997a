// The viewer's compare and search pages in headless Chromium: two runs of one maze drawn with both paths (read
// back from the canvas), runs of two mazes refused by name; a phrase planted in a model's reply and reasoning
// found across transcripts, linked to its step, and hostile search input refused or harmless.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import type { RunningViewer } from '../viewer/server.ts';
import { openPage, screenshotPath } from './support/browser.ts';
import { viewerSession } from './support/viewer-session.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { scriptedAgents } from './support/scripted-agent.ts';

let db: TestDatabase;
let browser: Browser;
let viewer: RunningViewer;
let close: (() => Promise<void>) | undefined;
let sameMaze: string[];
let otherMaze: string;
let planted: string;
const PHRASE = 'the Minotaur sleeps past the third door';

beforeAll(async () => {
  db = await testDatabase();
  const run = async (agent: 'frontier' | 'random', seed: number, maxMoves: number) =>
    (
      await runLocalExperiment(
        { agent, agentSeed: 5, maze: { generator: 'perfect', size: 15, seed }, config: { max_moves: maxMoves } },
        { db },
      )
    ).experimentId!;
  // the random run stops early, so the two paths end on different cells
  sameMaze = [await run('frontier', 3, 400), await run('random', 3, 40)];
  otherMaze = await run('frontier', 4, 400);
  planted = (
    await runLocalExperiment(
      {
        agent: 'random',
        maze: { generator: 'medium', size: 11, seed: 1 },
        config: { max_moves: 4, max_actions_per_turn: 2 },
      },
      {
        db,
        agents: scriptedAgents(
          [
            ['move_east', 'move_south'],
            ['move_north', 'move_west'],
          ],
          [],
          PHRASE,
        ),
      },
    )
  ).experimentId!;
  // a sweep's runs: their ids share the sweep's name, and differ only in the tail
  await runLocalSweep(
    loadSweep(
      `sweep: compare-legend-sweep
agents: [{ agent: frontier }, { agent: random }]
mazes: { generators: [perfect], sizes: [15], seeds: [3] }
config: { max_moves: 40 }
repeats: 1
`,
      'test',
    ),
    { db },
  );
  ({ browser, viewer, close } = await viewerSession(db));
});

afterAll(() => close?.());

const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

describe('compare', () => {
  it('draws two runs of one maze with both paths, and their numbers side by side', async () => {
    const { page, errors } = await openPage(browser, `${viewer.url}compare?ids=${sameMaze.join(',')}`);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    const ends = await page.evaluate(() => (window as any).__viewer.ends);
    expect(ends).toHaveLength(2);
    for (const [k, id] of sameMaze.entries()) {
      const { rows } = await db.pool.query('SELECT actions_taken FROM experiments WHERE id = $1', [id]);
      expect(ends[k].steps).toBe(rows[0].actions_taken);
      // each path's end is drawn in its own colour
      const px = await page.evaluate(({ x, y }) => {
        const c = document.getElementById('maze') as HTMLCanvasElement;
        return Array.from(c.getContext('2d')!.getImageData(x, y, 1, 1).data.slice(0, 3));
      }, ends[k]);
      expect(px).toEqual(rgb(ends[k].colour));
    }
    expect(ends[0].colour).not.toBe(ends[1].colour);
    // each run's id whole in its title, shown as its shortest distinct prefix
    const heads = await page.$$eval('#runs thead th a', (as) =>
      as.map((a) => ({ title: a.getAttribute('title'), text: a.textContent })),
    );
    expect(heads.map((h) => h.title)).toEqual(sameMaze);
    expect(heads.map((h) => h.text)).toEqual(sameMaze.map((id) => `${id.slice(0, 8)}\u2026`));
    // baselines call no model: their cost is known to be nothing ("unknown" is for a model without a price)
    const row = (name: string) =>
      page.$$eval(
        '#runs tbody tr',
        (trs, n) =>
          Array.from(trs.find((tr) => tr.children[0].textContent === n)!.children)
            .slice(1)
            .map((td) => td.textContent),
        name,
      );
    expect(await row('cost')).toEqual(['$0.0000', '$0.0000']);
    expect(await row('settings')).toEqual(['-', '-']); // runs outside a sweep vary no setting
    // the legend: each run by the start of its id, the whole id in its title
    const legend = () =>
      page.$$eval('#legend .run-key', (keys) => keys.map((k) => [k.textContent, k.getAttribute('title')]));
    expect(await legend()).toEqual([
      [`frontier (${sameMaze[0].slice(0, 8)})`, sameMaze[0]],
      [`random (${sameMaze[1].slice(0, 8)})`, sameMaze[1]],
    ]);
    await page.screenshot({ path: screenshotPath('viewer-compare.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("labels a sweep's runs in the legend by what tells them apart, the tail of their ids", async () => {
    const sweepRuns = ['compare-legend-sweep-c0-r1', 'compare-legend-sweep-c1-r1'];
    const { page, errors } = await openPage(browser, `${viewer.url}compare?ids=${sweepRuns.join(',')}`);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    const legend = await page.$$eval('#legend .run-key', (keys) =>
      keys.map((k) => [k.textContent, k.getAttribute('title')]),
    );
    expect(legend).toEqual([
      ['frontier (…-c0-r1)', sweepRuns[0]],
      ['random (…-c1-r1)', sweepRuns[1]],
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('refuses runs of different mazes, naming them', async () => {
    const res = await fetch(`${viewer.url}api/compare?ids=${sameMaze[0]},${otherMaze}`);
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.field).toBe('ids');
    expect(error.message).toContain('different mazes');
    expect(error.message).toContain(otherMaze);
    const { page } = await openPage(browser, `${viewer.url}compare`);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    expect(await page.textContent('#intro')).toContain('/compare?ids=A,B');
    await page.close();
  });

  it('refuses one id, a repeated id, a bad id and an unknown one', async () => {
    for (const ids of [sameMaze[0], `${sameMaze[0]},${sameMaze[0]}`, `${sameMaze[0]},../x`]) {
      const res = await fetch(`${viewer.url}api/compare?ids=${encodeURIComponent(ids)}`);
      expect(res.status, ids).toBe(400);
      expect((await res.json()).error.field).toBe('ids');
    }
    expect((await fetch(`${viewer.url}api/compare?ids=${sameMaze[0]},nobody-ran-this`)).status).toBe(404);
  });
});

describe('search', () => {
  it('finds a planted phrase in replies and reasoning, whatever its case, linked to its step', async () => {
    const { page, errors } = await openPage(browser, `${viewer.url}search?q=${encodeURIComponent('MINOTAUR sleeps')}`);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    const hits = await page.$$eval('li.hit', (lis) =>
      lis.map((li) => ({
        kind: li.getAttribute('data-kind'),
        href: li.querySelector('a')!.getAttribute('href'),
        mark: li.querySelector('mark')?.textContent,
      })),
    );
    expect(hits.length).toBeGreaterThan(0);
    expect(new Set(hits.map((h) => h.kind))).toEqual(new Set(['reply', 'reasoning']));
    for (const h of hits) {
      expect(h.href).toMatch(new RegExp(`^/experiments/${planted}(\\?step=\\d+)?$`));
      expect(h.mark).toBe('Minotaur sleeps');
    }
    // a reasoning hit opens its experiment at that step
    const { rows } = await db.pool.query(
      "SELECT min(step_number) AS step FROM actions WHERE experiment_id = $1 AND reasoning LIKE '%Minotaur%'",
      [planted],
    );
    expect(hits.map((h) => h.href)).toContain(`/experiments/${planted}?step=${rows[0].step}`);
    await page.screenshot({ path: screenshotPath('viewer-search.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('keeps to one kind when asked, and finds tool names', async () => {
    const only = await (await fetch(`${viewer.url}api/search?q=minotaur&kind=reasoning`)).json();
    expect(only.hits.length).toBeGreaterThan(0);
    expect(only.hits.every((h: { kind: string }) => h.kind === 'reasoning')).toBe(true);
    const tools = await (await fetch(`${viewer.url}api/search?q=move_south&kind=tool&limit=2`)).json();
    expect(tools.hits).toHaveLength(2);
    expect(tools.more).toBe(true);
  });

  it('refuses text too short, control characters and unknown kinds; SQL-looking text is only text', async () => {
    for (const [query, field] of [
      ['q=x', 'q'],
      ['q=ab%00cd', 'q'],
      ['q=minotaur&kind=bogus', 'kind'],
      [`q=${'a'.repeat(201)}`, 'q'],
      ['q=minotaur&limit=100000', 'limit'],
    ]) {
      const res = await fetch(`${viewer.url}api/search?${query}`);
      expect(res.status, query).toBe(400);
      expect((await res.json()).error.field, query).toBe(field);
    }
    for (const q of ["%' OR 1=1 --", '%', '_', '\\']) {
      const res = await fetch(`${viewer.url}api/search?q=${encodeURIComponent(q.padEnd(2, '_'))}`);
      expect(res.status, q).toBe(200);
      expect((await res.json()).hits, q).toEqual([]);
    }
  });
});
