// Every viewer page fits a 1024 x 768 screen: no horizontal scroll on the page (a wide table scrolls in its own
// box), ids and dates on one line (an id whole or its distinct prefix, a date short: the whole in the title), plots
// as wide as their box. At 1280 px nothing is hidden. All pages in one browser, against a sweep with settings, errors
// and an unpriced model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { RunningViewer } from '../viewer/server.ts';
import { screenshotPath } from './support/browser.ts';
import { viewerSession } from './support/viewer-session.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { providerSims } from './support/provider-sims.ts';
import { runModelSweep } from './support/model-sweep.ts';

const sims = providerSims();

let db: TestDatabase;
let browser: Browser;
let viewer: RunningViewer;
let close: (() => Promise<void>) | undefined;
let runs: string[];

beforeAll(async () => {
  db = await testDatabase();
  await runModelSweep(db, 'a-sweep-named-as-long-as-names-may-be-40', sims.ollamaUrl);
  // runs of one maze: two of frontier's, two of qwen's (four columns of compare)
  const { rows } = await db.pool.query(
    `SELECT e.id FROM experiments e JOIN sweep_runs r ON r.experiment_id = e.id
     JOIN sweep_cells c ON c.sweep_id = r.sweep_id AND c.cell_index = r.cell_index
     WHERE c.label IN ('frontier', 'qwen') ORDER BY c.label, e.id`,
  );
  runs = rows.map((r) => r.id as string);
  ({ browser, viewer, close } = await viewerSession(db));
});

afterAll(() => close?.());

interface Fit {
  /** The page's width as laid out, and the window's. */
  scrollWidth: number;
  innerWidth: number;
  /** For each element the page should keep on one line: its text and how many lines it takes. */
  lines: Array<{ what: string; tag: string; text: string; lines: number; title: string | null }>;
  /** Table headings shown (not display: none). */
  headings: Record<string, string[]>;
  /** Each table's width against its box's: more is a table that scrolls in its box. */
  tables: Record<string, { content: number; box: number }>;
  /** Each plot's width against its box's. */
  charts: Array<{ canvas: number; box: number }>;
}

/** What the page shows of `selectors` (name -> CSS selector, the first 3 matches of each) and its width. */
async function measure(page: Page, selectors: Record<string, string>): Promise<Fit> {
  return page.evaluate((sel) => {
    // the lines a text takes: the distinct tops of its text's boxes (a text that wraps has one box per line)
    const linesOf = (node: Element) => {
      const tops: number[] = [];
      const walk = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
      for (let t = walk.nextNode(); t; t = walk.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(t);
        for (const r of Array.from(range.getClientRects()))
          if (r.width > 0 && r.height > 0 && !tops.some((top) => Math.abs(top - r.top) < 3)) tops.push(r.top);
      }
      return tops.length;
    };
    const lines = Object.entries(sel).flatMap(([what, css]) =>
      Array.from(document.querySelectorAll(css))
        .slice(0, 3)
        .map((node) => ({
          what,
          tag: node.tagName,
          text: node.textContent ?? '',
          lines: linesOf(node),
          title: node.getAttribute('title') ?? node.closest('[title]')?.getAttribute('title') ?? null,
        })),
    );
    const headings: Record<string, string[]> = {};
    const tables: Record<string, { content: number; box: number }> = {};
    for (const table of Array.from(document.querySelectorAll('table[id]'))) {
      headings[table.id] = Array.from(table.querySelectorAll('thead th'))
        .filter((th) => getComputedStyle(th).display !== 'none')
        .map((th) => th.textContent ?? '');
      tables[table.id] = { content: table.scrollWidth, box: table.clientWidth };
    }
    const charts = Array.from(document.querySelectorAll('.chart canvas')).map((c) => ({
      canvas: c.getBoundingClientRect().width,
      box: (c.closest('.charts') as Element).getBoundingClientRect().width,
    }));
    return {
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      lines,
      headings,
      tables,
      charts,
    };
  }, selectors);
}

/** The columns the experiments table may leave out on a narrow screen (docs/viewer.md). */
const SECONDARY = ['sweep', 'optimal', 'turns', 'tiles seen', 'tokens', 'last update'];

const ready = (page: Page) => page.waitForFunction(() => (window as any).__viewer?.ready);

/** Each page, what makes it ready, and which of its texts must keep to one line. */
const PAGES: Array<{
  name: string;
  path: () => string;
  wait: (page: Page) => Promise<unknown>;
  oneLine: Record<string, string>;
}> = [
  {
    name: 'experiments',
    path: () => '',
    wait: ready,
    oneLine: {
      id: '#experiments tbody td.id a.id',
      settings: '#experiments tbody td.settings',
      started: '#experiments tbody td.when:not(.updated) time',
    },
  },
  {
    name: 'sweeps',
    path: () => 'sweeps',
    wait: ready,
    oneLine: { sweep: '#sweeps tbody td.id a.id', created: '#sweeps tbody td.when time' },
  },
  {
    name: 'sweep',
    path: () => 'sweeps/a-sweep-named-as-long-as-names-may-be-40',
    wait: async (page) => {
      await ready(page);
      await page.waitForFunction(() => (window as any).__report?.charts?.length > 0);
    },
    oneLine: {
      title: '#title',
      'cell settings': '#cells tbody td.settings',
      'stats settings': '#stats tbody td.settings',
      'error run': '#error-runs tbody td.id a.id',
    },
  },
  {
    name: 'experiment',
    path: () => `experiments/${runs[0]}`,
    wait: ready,
    oneLine: { title: '#title' },
  },
  {
    name: 'compare',
    path: () => `compare?ids=${runs.slice(0, 4).join(',')}`,
    wait: ready,
    // the runs side by side: their ids whole, on the lines they take (checked below)
    oneLine: {},
  },
  {
    name: 'search',
    path: () => 'search?q=move&kind=tool',
    wait: ready,
    oneLine: { run: '#hits li.hit > a.id' },
  },
];

describe('the viewer on a 1024 x 768 screen', () => {
  it('fits every page: no horizontal scroll, ids and dates on one line, plots in their box', async () => {
    const narrow = await browser.newPage({ viewport: { width: 1024, height: 768 } });
    const wide = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    for (const page of [narrow, wide]) {
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(String(e)));
    }
    for (const p of PAGES) {
      const fits: Fit[] = [];
      for (const page of [narrow, wide]) {
        await page.goto(`${viewer.url}${p.path()}`);
        await p.wait(page);
        fits.push(await measure(page, p.oneLine));
      }
      const [small, large] = fits;
      await narrow.screenshot({ path: screenshotPath(`viewer-1024-${p.name}.png`), fullPage: true });
      await wide.screenshot({ path: screenshotPath(`viewer-1280-${p.name}.png`) });
      expect.soft(small.innerWidth, p.name).toBe(1024);
      expect.soft(small.scrollWidth, `${p.name}: the page scrolls sideways`).toBeLessThanOrEqual(1024);
      expect.soft(large.scrollWidth, p.name).toBeLessThanOrEqual(1280);
      // every text that must keep to one line is there, on one line, with its full form in a title
      for (const what of Object.keys(p.oneLine))
        expect
          .soft(
            small.lines.some((l) => l.what === what && l.text !== ''),
            `${p.name}: ${what}`,
          )
          .toBe(true);
      for (const l of [...small.lines, ...large.lines].filter((x) => x.text !== '')) {
        expect.soft(l.lines, `${p.name}: ${l.what} "${l.text}" on ${l.lines} lines`).toBe(1);
        // a time shows short, its title the full UTC time; an id whole or as a prefix and "…", the settings cut by
        // the CSS: the whole in the title
        if (l.tag === 'TIME')
          expect.soft(l.title, `${p.name}: ${l.what}`).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
        else if (l.what !== 'title' && l.text !== '-')
          expect
            .soft(l.text.endsWith('\u2026') ? l.title?.startsWith(l.text.slice(0, -1)) : l.title === l.text)
            .toBe(true);
      }
      // at 1280 px every column shows; at 1024 px the ones hidden are the secondary ones
      for (const [table, heads] of Object.entries(large.headings)) {
        const all = await wide.$$eval(`#${table} thead th`, (ths) => ths.map((th) => th.textContent ?? ''));
        expect.soft(heads, `${p.name}: #${table} at 1280 px`).toEqual(all);
        for (const h of all.filter((x) => !small.headings[table].includes(x)))
          expect
            .soft(SECONDARY, `${p.name}: #${table} hides "${h}" at 1024 px`)
            .toContain(h.replace(/ [\u25bc\u25b2]$/, ''));
      }
      // the experiments table, the one a user starts from, fits a 1024 px screen without scrolling even in its box,
      // but for its ids: whole, a long-named sweep's runs may take more room than there is (they scroll in the box)
      if (p.name === 'experiments') {
        const idsAside = await narrow.evaluate(() => {
          const table = document.getElementById('experiments')!;
          const links = Array.from(table.querySelectorAll('a.id'));
          const texts = links.map((a) => a.textContent);
          for (const a of links) a.textContent = (a.textContent ?? '').slice(0, 14);
          const fit = { content: table.scrollWidth, box: table.clientWidth };
          links.forEach((a, k) => (a.textContent = texts[k]));
          return fit;
        });
        expect.soft(idsAside.content).toBeLessThanOrEqual(idsAside.box);
      }
      if (p.name === 'compare') {
        const heads = await narrow.$$eval('#runs thead th a.id', (as) =>
          as.map((a) => ({ text: a.textContent, title: a.getAttribute('title') })),
        );
        expect.soft(heads.length).toBe(4);
        for (const h of heads) expect.soft(h.text).toBe(h.title);
      }
      // the plots as wide as their box at most
      if (p.name === 'sweep') expect.soft(small.charts.length).toBeGreaterThan(0);
      for (const c of [...small.charts, ...large.charts]) expect.soft(c.canvas).toBeLessThanOrEqual(c.box + 0.5);
    }
    expect(errors).toEqual([]);
    await narrow.close();
    await wide.close();
  });
});
