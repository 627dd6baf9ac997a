// The experiment page of a run under the image observation format, in a real headless Chromium: beside each model
// call the pictures it first sent, drawn again by the viewer and decoded by the browser, one per hash the call
// recorded; a stored vision changed since is flagged as not what the model saw; the PNG route's pixels hash as
// recorded; runs of other formats show and serve no pictures. And where a call's reasoning token count comes from.
import { createHash } from 'node:crypto';
import { decode } from 'fast-png';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { OpenAISim } from '../simulators/openai-sim.ts';
import type { RunningViewer } from '../viewer/server.ts';
import { openPage } from './support/browser.ts';
import { viewerSession } from './support/viewer-session.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { FAST_RETRY } from './support/provider-sims.ts';
import type { ExperimentConfigInput } from '../core/config/experiment-config.ts';

const MAZE = { generator: 'medium', size: 11, seed: 3 };
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const sim = new OpenAISim();
const silent = new OpenAISim({ reasoningField: null }); // as OpenAI's own API: reasoning counted, never returned
let db: TestDatabase;
let browser: Browser;
let viewer: RunningViewer;
let close: (() => Promise<void>) | undefined;
const runs = { pictured: '', text: '', reasoned: '', silent: '' };

/** A run through an OpenAI simulator at `baseUrl`, its id. */
async function run(baseUrl: string, model: string, config: ExperimentConfigInput, maxMoves: number) {
  const { experimentId } = await runLocalExperiment(
    {
      agent: 'openai',
      model,
      maze: MAZE,
      config: {
        ...config,
        openai: { ...config.openai, base_url: baseUrl },
        retry: FAST_RETRY,
        max_moves: maxMoves,
      },
    },
    { db },
  );
  return experimentId!;
}

beforeAll(async () => {
  db = await testDatabase();
  const url = `${await sim.listen()}/v1`;
  const silentUrl = `${await silent.listen()}/v1`;
  const low: ExperimentConfigInput = { openai: { reasoning_effort: 'low' } };
  // one run at a time per simulator: requests carry no game id, and a simulated model playing two mazes loses its map
  const onSilent = run(silentUrl, 'o4-mini', low, 4);
  runs.pictured = await run(url, 'gpt-4.1-mini', { observation: 'image' }, 30);
  runs.text = await run(url, 'gpt-4.1-mini', { observation: 'local_grid' }, 4);
  runs.reasoned = await run(url, 'o4-mini', low, 4);
  runs.silent = await onSilent;
  ({ browser, viewer, close } = await viewerSession(db));
});

afterAll(async () => {
  await close?.();
  await sim.close();
  await silent.close();
});

/** Per model call of a turn, the hashes it recorded (llm_calls.image_sha256). */
async function recorded(id: string, turn: number): Promise<string[][]> {
  const { rows } = await db.pool.query<{ hashes: string[] | null }>(
    'SELECT image_sha256 AS hashes FROM llm_calls WHERE experiment_id = $1 AND turn_number = $2 ORDER BY call_index',
    [id, turn],
  );
  return rows.map((r) => r.hashes ?? []);
}

/** A picture as GET /api/experiments/:id/turns/:turn/pictures lists it. */
interface Listed {
  step: number | null;
  recorded: string | null;
  drawn: string;
  matches: boolean;
  src: string;
}

/** Per model call of a turn, the pictures the viewer lists for it. */
async function listed(id: string, turn: number): Promise<Listed[][]> {
  const res = await fetch(`${viewer.url}api/experiments/${id}/turns/${turn}/pictures`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { calls: Array<{ pictures: Listed[] }> }).calls.map((c) => c.pictures);
}

/** The first step of each turn that has one. */
async function firstSteps(id: string): Promise<Map<number, number>> {
  const { rows } = await db.pool.query<{ turn: number; step: number }>(
    `SELECT turn_number AS turn, min(step_number)::int AS step FROM actions
     WHERE experiment_id = $1 AND executed GROUP BY 1 ORDER BY 1`,
    [id],
  );
  return new Map(rows.map((r) => [r.turn, r.step]));
}

/** The turn panel's pictures once each is scrolled into sight (they load lazily) and decoded, call by call. */
async function shownPictures(page: Page) {
  await page.waitForSelector('#turn-detail .call');
  // by locator, found again at each step: the panel may be drawn again meanwhile (a held handle would detach)
  const images = page.locator('#turn-detail .pictures img');
  for (let i = 0; i < (await images.count()); i++) await images.nth(i).scrollIntoViewIfNeeded();
  await page.waitForFunction(() =>
    Array.from(document.querySelectorAll<HTMLImageElement>('#turn-detail .pictures img')).every((i) => i.complete),
  );
  return page.$$eval('#turn-detail .call', (calls) =>
    calls.map((c) =>
      Array.from(c.querySelectorAll('figure')).map((f) => {
        const img = f.querySelector('img')!;
        return {
          naturalWidth: img.naturalWidth,
          loading: img.loading,
          shownWidth: img.getBoundingClientRect().width,
          rendering: getComputedStyle(img).imageRendering,
          caption: f.querySelector('figcaption')!.textContent,
          mismatch: f.classList.contains('mismatch'),
          step: f.getAttribute('data-step'),
        };
      }),
    ),
  );
}

describe('a run under the image format', () => {
  it('shows beside each call the pictures it first sent, decoded by the browser, one per recorded hash', async () => {
    const steps = await firstSteps(runs.pictured);
    const turns = [...steps.keys()].slice(0, 2);
    expect(turns.length).toBe(2);
    const { page, errors } = await openPage(browser, `${viewer.url}experiments/${runs.pictured}?step=${steps.get(1)}`);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    const { rows: starts } = await db.pool.query(
      'SELECT start_x, start_y FROM mazes m JOIN experiments e ON e.maze_id = m.id WHERE e.id = $1',
      [runs.pictured],
    );
    let total = 0;
    for (const turn of turns) {
      await page.evaluate((s) => (window as any).__viewer.go(s), steps.get(turn));
      await page.waitForFunction((t) => document.getElementById('turn-number')?.textContent === String(t), turn);
      const hashes = await recorded(runs.pictured, turn);
      const shown = await shownPictures(page);
      // call by call, as many pictures as the call recorded hashes
      expect(shown.map((c) => c.length)).toEqual(hashes.map((h) => h.length));
      const all = shown.flat();
      total += all.length;
      expect(all.every((p) => p.naturalWidth > 0 && p.loading === 'lazy')).toBe(true);
      expect(all.every((p) => p.shownWidth > p.naturalWidth && p.rendering === 'pixelated')).toBe(true);
      expect(all.filter((p) => p.mismatch)).toEqual([]);
      expect(shown[0][0].caption).toMatch(/^turn's first view at \(\d+,\d+\)$/);
      expect(all.slice(1).every((p) => /^after step \d+ at \(\d+,\d+\)$/.test(p.caption ?? ''))).toBe(true);
      if (turn === 1)
        expect(shown[0][0].caption).toBe(`turn's first view at (${starts[0].start_x},${starts[0].start_y})`);
    }
    expect(total).toBeGreaterThan(turns.length);
    expect(await page.$$('.problem:not([hidden])')).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('serves each picture as a PNG whose decoded pixels hash to what the call recorded', async () => {
    const calls = await listed(runs.pictured, 1);
    expect(calls.map((c) => c.map((p) => p.recorded))).toEqual(await recorded(runs.pictured, 1));
    for (const p of calls.flat()) {
      expect(p.matches).toBe(true);
      const png = await fetch(new URL(p.src, viewer.url));
      expect(png.status).toBe(200);
      expect(png.headers.get('content-type')).toBe('image/png');
      expect(png.headers.get('etag')).toBe(`"${p.recorded}"`);
      expect(png.headers.get('cache-control')).toContain('immutable');
      const bytes = new Uint8Array(await png.arrayBuffer());
      expect(PNG_SIGNATURE.every((b, i) => bytes[i] === b)).toBe(true);
      const { width, height, data } = decode(bytes);
      expect(createHash('sha256').update(`${width}x${height}:`).update(data).digest('hex')).toBe(p.recorded);
      // asked again with the ETag it has: not sent again
      const again = await fetch(new URL(p.src, viewer.url), { headers: { 'if-none-match': `"${p.recorded}"` } });
      expect(again.status).toBe(304);
    }
  });

  it('flags a picture whose stored vision is no longer what the model saw', async () => {
    const picture = (await listed(runs.pictured, 1)).flat().find((p) => p.step !== null)!;
    const { rows } = await db.pool.query(
      'SELECT vision FROM actions WHERE experiment_id = $1 AND step_number = $2 AND executed',
      [runs.pictured, picture.step],
    );
    await db.pool.query(
      `UPDATE actions SET vision = '[]'::jsonb WHERE experiment_id = $1 AND step_number = $2 AND executed`,
      [runs.pictured, picture.step],
    );
    try {
      const { page, errors } = await openPage(
        browser,
        `${viewer.url}experiments/${runs.pictured}?step=${picture.step}`,
      );
      await page.waitForFunction(() => (window as any).__viewer?.ready);
      const shown = (await shownPictures(page)).flat();
      expect(shown.filter((p) => p.mismatch).map((p) => p.step)).toEqual([String(picture.step)]);
      const marker = await page.textContent('#turn-detail figure.mismatch .problem');
      expect(marker).toContain('drawn again, this picture does not match what the model was sent');
      expect(marker).toContain(`sha256 ${picture.recorded!.slice(0, 12)}`);
      // and the JSON says so too, the recorded hash kept
      const after = (await listed(runs.pictured, 1)).flat().filter((p) => !p.matches);
      expect(after.map((p) => [p.step, p.recorded])).toEqual([[picture.step, picture.recorded]]);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await db.pool.query(`UPDATE actions SET vision = $3 WHERE experiment_id = $1 AND step_number = $2 AND executed`, [
        runs.pictured,
        picture.step,
        JSON.stringify(rows[0].vision),
      ]);
    }
  });

  it('answers 404 for a picture past the end of a call, a turn or the run, 400 for an index not a number', async () => {
    const n = (await recorded(runs.pictured, 1))[0].length;
    const base = `${viewer.url}api/experiments/${runs.pictured}/turns`;
    for (const path of [`1/pictures/0/${n}.png`, '1/pictures/99/0.png', '9999/pictures/0/0.png', '9999/pictures']) {
      const res = await fetch(`${base}/${path}`);
      expect(res.status, path).toBe(404);
      expect((await res.json()).error.name, path).toBe('NotFound');
    }
    const missing = await fetch(`${viewer.url}api/experiments/no-such-run/turns/1/pictures/0/0.png`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.name).toBe('ExperimentNotFoundError');
    const bad = await fetch(`${base}/1/pictures/0/x.png`);
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.field).toBe('index');
  });
});

describe('a run under a text format', () => {
  it('serves no pictures and its page shows and asks for none', async () => {
    for (const path of ['1/pictures', '1/pictures/0/0.png']) {
      const res = await fetch(`${viewer.url}api/experiments/${runs.text}/turns/${path}`);
      expect(res.status, path).toBe(404);
      const { error } = await res.json();
      expect(error.message).toContain('its observation format is not image');
    }
    const asked: string[] = [];
    const page = await browser.newPage();
    page.on('request', (r) => asked.push(r.url()));
    await page.goto(`${viewer.url}experiments/${runs.text}?step=1`);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    await page.waitForSelector('#turn-detail .call');
    expect(await page.$$('#turn-detail .pictures, #turn-detail img')).toEqual([]);
    expect(asked.filter((u) => u.includes('/pictures'))).toEqual([]);
    await page.close();
  });
});

describe('reasoning tokens', () => {
  /** The first model call's reasoning as the page shows it, and the counts stored for it. */
  async function firstCall(id: string) {
    const { rows } = await db.pool.query<{ reported: number | null; text: string | null }>(
      `SELECT reported_reasoning_tokens AS reported, reasoning_text AS text FROM llm_calls
       WHERE experiment_id = $1 AND turn_number = 1 AND call_index = 0`,
      [id],
    );
    const { page, errors } = await openPage(browser, `${viewer.url}experiments/${id}?step=1`);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    await page.waitForSelector('#turn-detail .call');
    const call = page.locator('#turn-detail .call').first();
    const shown = {
      summary: await call.locator('details.reasoning summary').allTextContents(),
      note: await call.locator('.reasoning-note').allTextContents(),
    };
    expect(errors).toEqual([]);
    await page.close();
    return { stored: rows[0], shown };
  }

  it('say they are as reported when the server counted them, beside the reasoning text it returned', async () => {
    const { stored, shown } = await firstCall(runs.reasoned);
    expect(stored.text).toBeTruthy();
    expect(stored.reported).toBeGreaterThan(0);
    expect(shown).toEqual({
      summary: [`reasoning (${stored.reported!.toLocaleString('en-US')} tokens, as reported)`],
      note: [],
    });
  });

  it('say so when the server counted reasoning and returned no text of it', async () => {
    const { stored, shown } = await firstCall(runs.silent);
    expect(stored.text).toBeNull();
    expect(stored.reported).toBeGreaterThan(0);
    const n = stored.reported!.toLocaleString('en-US');
    expect(shown).toEqual({
      summary: [],
      note: [`reasoning: ${n} tokens as reported; the server returned no reasoning text`],
    });
  });
});
