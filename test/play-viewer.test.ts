// The viewer's play page (ariadne view --play) in a real headless Chromium: a person starts a game as agent human,
// is shown what a model is sent (checked against the renderers, the image format's picture by its hash), plays a small
// maze to the goal by clicks, and the database has the run as agent human with the player and every move; arrow keys
// and giving up; and the page refuses to play when playing is off, or for a page of another origin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { resolveConfig, systemPrompt } from '../core/engine/experiment.ts';
import { initialState } from '../core/engine/game.ts';
import { observationAt } from '../core/engine/observation.ts';
import { generateMaze } from '../core/maze/generators/index.ts';
import { observationPicture, renderObservation } from '../core/providers/llm/observations/index.ts';
import { startViewer, type RunningViewer } from '../viewer/server.ts';
import { launchBrowser, openPage, screenshotPath } from './support/browser.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { pathToGoal } from './support/human-seat.ts';

const maze = generateMaze({ generator: 'medium', width: 9, height: 9, seed: 2 });
const PATH = pathToGoal(maze);
const TOOL: Record<string, string> = { n: 'move_north', s: 'move_south', e: 'move_east', w: 'move_west' };

let db: TestDatabase;
let browser: Browser;
let viewer: RunningViewer;
let readOnly: RunningViewer;

beforeAll(async () => {
  db = await testDatabase();
  browser = await launchBrowser();
  viewer = await startViewer({ db, source: 'test database', pollMs: 1000, play: { db } });
  readOnly = await startViewer({ db, source: 'test database', pollMs: 1000 });
});

afterAll(async () => {
  await readOnly?.close();
  await viewer?.close();
  await browser?.close();
  await db?.drop();
});

declare global {
  interface Window {
    __viewer?: { ready: boolean; status?: string; seen?: number; id?: string; enabled?: boolean };
  }
}

/** Starts a game from the page's form; resolves once the first move is due. */
async function startGame(page: Page, player: string, observation: string) {
  await page.waitForSelector('#start:not([hidden])');
  await page.fill('input[name=player]', player);
  await page.selectOption('select[name=observation]', observation);
  await page.selectOption('select[name=generator]', 'medium');
  await page.fill('input[name=size]', '9');
  await page.fill('input[name=seed]', '2');
  await page.click('#start-button');
  await page.waitForFunction(() => window.__viewer?.status === 'your_move');
  return (await page.evaluate(() => window.__viewer!.id))!;
}

/** Does `act` (a click, a key) and waits until the page has drawn what came of it. */
async function moved(page: Page, act: () => Promise<void>) {
  const before = await page.evaluate(() => window.__viewer!.seen!);
  await act();
  await page.waitForFunction((n) => window.__viewer!.seen! > n && window.__viewer!.status !== 'thinking', before);
  return page.evaluate(() => window.__viewer!.status);
}

async function experimentRow(id: string) {
  const { rows } = await db.pool.query(
    'SELECT agent, provider, player, status, goal_found, stop_reason, actions_taken FROM experiments WHERE id = $1',
    [id],
  );
  return rows[0];
}

async function toolsOf(id: string) {
  const { rows } = await db.pool.query<{ tool: string; outcome: string }>(
    'SELECT tool, outcome FROM actions WHERE experiment_id = $1 AND executed ORDER BY step_number',
    [id],
  );
  return rows;
}

const firstObservation = (config: ReturnType<typeof resolveConfig>) =>
  observationAt(maze, config, initialState(maze, config), {
    turnNumber: 1,
    results: [],
    phase: 'exploring',
    actionsLeftInTurn: config.max_actions_per_turn,
  });

describe('the play page', () => {
  it('plays a small maze to the goal by clicks, shown what a model is sent; a run of agent human', async () => {
    const { page, errors } = await openPage(browser, `${viewer.url}play`);
    const id = await startGame(page, 'ada', 'rays');
    const config = resolveConfig({});
    expect(await page.textContent('.play-system pre')).toBe(systemPrompt(maze, config));
    expect(await page.textContent('pre.observation')).toBe(
      renderObservation('rays', firstObservation(config), config.max_moves),
    );
    let status: string | undefined = 'your_move';
    let clicks = 0;
    for (const step of PATH) {
      if (status !== 'your_move') break;
      status = await moved(page, () => page.click(`#pad button[data-command="${step}"]`));
      clicks++;
    }
    expect(status).toBe('ended');
    expect(await page.textContent('#play-status')).toMatch(/^goal found in \d+ actions \(optimal \d+, efficiency/);
    // the page's results are what the engine said after each move
    expect(await page.locator('.play-result').count()).toBeGreaterThan(0);
    await page.screenshot({ path: screenshotPath('play-page.png'), fullPage: true });
    expect(errors).toEqual([]);

    expect(await experimentRow(id)).toMatchObject({
      agent: 'human',
      provider: 'human',
      player: 'ada',
      status: 'completed',
      goal_found: true,
      actions_taken: clicks,
    });
    expect(await toolsOf(id)).toEqual(PATH.slice(0, clicks).map((s) => ({ tool: TOOL[s], outcome: 'moved' })));
    // the run's own page links from the outcome
    await page.click('#play-status a.id');
    await page.waitForURL(`**/experiments/${id}`);
    await page.close();
  });

  it('shows the image format as its picture, takes arrow keys, and records giving up', async () => {
    const { page, errors } = await openPage(browser, `${viewer.url}play`);
    page.on('dialog', (d) => void d.accept());
    const id = await startGame(page, 'bo', 'image');
    const config = resolveConfig({ observation: 'image' });
    const picture = page.locator('img.play-picture').first();
    await page.waitForFunction(
      () => (document.querySelector('img.play-picture') as HTMLImageElement)?.naturalWidth > 0,
    );
    expect(await picture.getAttribute('title')).toBe(observationPicture(firstObservation(config)).sha256);
    const key = ({ n: 'ArrowUp', s: 'ArrowDown', e: 'ArrowRight', w: 'ArrowLeft' } as Record<string, string>)[PATH[0]];
    expect(await moved(page, () => page.keyboard.press(key))).toBe('your_move');
    // a move's result, then its picture, as a model gets them
    expect(await page.locator('.play-result').count()).toBe(1);
    expect(await page.locator('img.play-picture').count()).toBe(2);
    expect(await moved(page, () => page.click('#pad button[data-command="quit"]'))).toBe('ended');
    expect(await page.textContent('#play-status')).toMatch(/not solved: timeout \(gave_up\) after 1 actions/);
    expect(errors).toEqual([]);
    expect(await experimentRow(id)).toMatchObject({ player: 'bo', status: 'timeout', stop_reason: 'gave_up' });
    expect(await toolsOf(id)).toEqual([{ tool: TOOL[PATH[0]], outcome: 'moved' }]);
    await page.close();
  });

  it('takes a typed command with its reason, and refuses a move from a page behind the game', async () => {
    const { page } = await openPage(browser, `${viewer.url}play`);
    const id = await startGame(page, 'cy', 'local_grid');
    const seen = await page.evaluate(() => window.__viewer!.seen!);
    // the page is behind: refused (409), nothing played
    const stale = await page.evaluate(
      async ([game, n]) =>
        (
          await fetch(`/api/play/${game}/moves`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ command: 's', seen: n }),
          })
        ).status,
      [id, seen - 1] as const,
    );
    expect(stale).toBe(409);
    await page.fill('#typed input', `${PATH[0]} the corridor`);
    expect(await moved(page, () => page.click('#typed button'))).toBe('your_move');
    expect(await page.textContent('.play-move')).toBe(`> ${TOOL[PATH[0]]} (reasoning: the corridor)`);
    // a turn is committed whole, as every agent's: the move is in the database once the turn (here the game) ends
    page.on('dialog', (d) => void d.accept());
    expect(await moved(page, () => page.click('#pad button[data-command="quit"]'))).toBe('ended');
    const { rows } = await db.pool.query('SELECT tool, reasoning FROM actions WHERE experiment_id = $1', [id]);
    expect(rows).toEqual([{ tool: TOOL[PATH[0]], reasoning: 'the corridor' }]);
    await page.close();
  });

  it('says playing is off in a viewer started without --play, and refuses a game from another origin', async () => {
    const { page, errors } = await openPage(browser, `${readOnly.url}play`);
    await page.waitForFunction(() => window.__viewer?.ready);
    expect(await page.textContent('#play-off')).toMatch(/Playing is off in this viewer.*ariadne view --play/);
    expect(await page.isHidden('#start')).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
    const body = JSON.stringify({ player: 'dee', maze: { generator: 'medium', size: 9, seed: 2 } });
    const off = await fetch(`${readOnly.url}api/play`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(off.status).toBe(404);
    const foreign = await fetch(`${viewer.url}api/play`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
      body,
    });
    expect(foreign.status).toBe(403);
    const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM experiments WHERE player = 'dee'");
    expect(rows[0].n).toBe(0);
  });
});
