// A live experiment page asks only for the turns after the last one it holds (`/api/experiments/ID?after=N`): on a
// real running experiment, the bytes of each update follow the number of new turns, not the length of the run, and
// once the run ends the page holds exactly what a fresh load of it gives (the fast path answers as the slow one).
// A long run's first read is its head (the turns up to step 500, or `?head=N`) and the rest follows the same way: the
// page that read a run in parts holds what one that read it whole holds.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Agent, AgentFactory } from '../core/engine/agent.ts';
import { loadReplay } from '../reports/replay-data.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { startViewer, type RunningViewer } from '../viewer/server.ts';
import { launchBrowser, openPage } from './support/browser.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

let db: TestDatabase;
let browser: Browser;
let viewer: RunningViewer;

const TURNS = 200;

beforeAll(async () => {
  db = await testDatabase();
  browser = await launchBrowser();
  viewer = await startViewer({ db, source: 'test', pollMs: 200 });
});

afterAll(async () => {
  await viewer?.close();
  await browser?.close();
  await db?.drop();
});

/** An agent of one move a turn whose turns after the first wait for a release each. */
function gatedAgent() {
  let turn = 0;
  const gates: Array<() => void> = [];
  let released = 0;
  const agent: Agent = {
    callsModel: true,
    async act() {
      const k = turn++;
      if (k > 0 && k > released) await new Promise<void>((resolve) => gates.push(resolve));
      return { calls: [{ name: k % 2 ? 'move_west' : 'move_east', arguments: { reasoning: `turn ${k + 1}` } }] };
    },
  };
  const factory: AgentFactory = () => agent;
  const release = (n: number) => {
    released += n;
    for (let i = 0; i < n; i++) gates.shift()?.();
  };
  return { factory, release };
}

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const turnsOf = async (id: string) =>
  Number((await db.pool.query('SELECT turns_completed FROM experiments WHERE id = $1', [id])).rows[0].turns_completed);

/** Each live update the page read: how many turns it brought, its bytes, and the turn it asked after. */
function updatesOf(page: Page) {
  const seen: Array<{ after: number; turns: number; bytes: number }> = [];
  page.on('response', async (res) => {
    const after = new URL(res.url()).searchParams.get('after');
    if (after === null) return;
    const body = await res.body();
    seen.push({ after: Number(after), turns: JSON.parse(body.toString()).turns.length, bytes: body.length });
  });
  return seen;
}

it('sends a live page only the new turns, and the page ends as a fresh load of the run', async () => {
  const gate = gatedAgent();
  const run = runLocalExperiment(
    {
      agent: 'random',
      maze: { generator: 'open_field', size: 9, seed: 7 },
      config: { max_moves: TURNS, max_actions_per_turn: 1 },
    },
    { db, agents: gate.factory },
  );
  const id = await until('the first turn', async () => {
    const { rows } = await db.pool.query(
      "SELECT id FROM experiments WHERE status = 'running' AND turns_completed >= 1",
    );
    return rows[0]?.id as string | undefined;
  });
  // a run of 20 turns when the page opens
  gate.release(19);
  await until('20 turns', async () => (await turnsOf(id)) === 20);
  const { page, errors } = await openPage(browser, `${viewer.url}experiments/${id}`);
  const updates = updatesOf(page);
  await page.waitForFunction(() => (window as any).__viewer?.ready);
  await page.waitForSelector('.live-state.on');

  /** Releases `n` turns and waits for the page to hold them; the updates that brought them. */
  const grow = async (n: number) => {
    const from = updates.length;
    const target = (await turnsOf(id)) + n;
    gate.release(n);
    await until(`${target} turns`, async () => (await turnsOf(id)) === target);
    await page.waitForFunction((t) => (window as any).__viewer.steps === t, target, { timeout: 10_000 });
    // the responses' bodies are read as they come: wait for those that brought the n turns
    const brought = () => updates.slice(from).reduce((sum, u) => sum + u.turns, 0);
    await until('the updates read', () => Promise.resolve(brought() >= n));
    return updates.slice(from).filter((u) => u.turns > 0); // not the read as the stream starts, which found none
  };

  const [early] = await grow(1); // one new turn on a run of 20
  expect(early).toMatchObject({ after: 20, turns: 1 });
  const many = await grow(150); // the run grows by 150 turns, in one update or a few
  expect(many.reduce((sum, u) => sum + u.turns, 0)).toBe(150); // each turn once
  const [late] = await grow(1); // one new turn on a run of 171
  expect(late).toMatchObject({ after: 171, turns: 1 });
  const whole = (await (await fetch(`${viewer.url}api/experiments/${id}`)).arrayBuffer()).byteLength;

  // one turn costs the same on a run of 171 turns as on one of 20 (a few more digits in its numbers), and far
  // less than the whole run; an update of many turns is larger by about as many turns
  expect(late.bytes).toBeLessThan(early.bytes * 1.1);
  expect(late.bytes * 10).toBeLessThan(whole);
  const biggest = many.reduce((a, b) => (b.turns > a.turns ? b : a));
  expect(biggest.bytes).toBeGreaterThan(early.bytes + (biggest.turns - 1) * 20);
  expect(await page.evaluate(() => (window as any).__viewer.reloads)).toBe(0);

  // the rest of the run, to its end: the page's own appended copy equals a fresh page's read of the whole
  gate.release(TURNS);
  await run;
  await page.waitForFunction(() => (window as any).__viewer.held().experiment.status !== 'running', null, {
    timeout: 10_000,
  });
  const fresh = await openPage(browser, `${viewer.url}experiments/${id}`);
  await fresh.page.waitForFunction(() => (window as any).__viewer?.ready);
  const held = await page.evaluate(() => (window as any).__viewer.held());
  const read = await fresh.page.evaluate(() => (window as any).__viewer.held());
  expect(held.steps).toBe(TURNS);
  expect(held).toEqual(read);
  expect(errors).toEqual([]);
  expect(fresh.errors).toEqual([]);
  await fresh.page.close();
  await page.close();
});

it('opens a long run at its head and appends the rest, ending as a page that read it whole', async () => {
  const { experimentId: id } = await runLocalExperiment(
    { agent: 'random', agentSeed: 3, maze: { generator: 'perfect', size: 15, seed: 3 }, config: { max_moves: 300 } },
    { db },
  );
  // words of a model that would end the page's data block, were they not escaped
  const words = '</script><script>window.__hit = 1</script><!-- ';
  await db.pool.query('UPDATE actions SET assistant_text = $2 WHERE experiment_id = $1 AND step_number = 3', [
    id,
    words,
  ]);
  const whole = await openPage(browser, `${viewer.url}experiments/${id}`);
  await whole.page.waitForFunction(() => (window as any).__viewer?.wholeMs);
  expect((await whole.page.evaluate(() => (window as any).__viewer.held())).notes).toContainEqual(
    expect.objectContaining({ step: 3, text: words }),
  );
  const steps = await whole.page.evaluate(() => (window as any).__viewer.steps);
  expect(steps).toBeGreaterThan(100);
  const wholeHeld = await whole.page.evaluate(() => (window as any).__viewer.held());
  // the page derives seenAt from the cones: as the replay file's reader (loadReplay) counts it
  const replay = await loadReplay(db, id!);
  const served = Buffer.from(replay.seenAt, 'base64');
  expect(wholeHeld.arrays[8]).toEqual(Array.from(new Uint32Array(served.buffer, served.byteOffset, served.length / 4)));
  // the same page with a head of 50 steps (its seenAt rebuilt from the cones it holds, then appended to), and one
  // opened at step 100, whose head reaches that step: each ends holding what the whole read holds
  for (const [query, head, opensAt] of [
    ['?head=50', 50, 0],
    ['?head=50&step=100', 100, 100],
  ] as const) {
    const parts = await openPage(browser, 'about:blank');
    const asked: string[] = [];
    parts.page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname.startsWith('/api/')) asked.push(url.search);
    });
    await parts.page.goto(`${viewer.url}experiments/${id}${query}`);
    await parts.page.waitForFunction(() => (window as any).__viewer?.wholeMs);
    // the head came inside the page, not by a request of its own
    expect(await parts.page.getAttribute('#first-read', 'data-src')).toBe(`/api/experiments/${id}?head=${head}`);
    expect(asked.some((q) => q.startsWith('?head='))).toBe(false);
    expect(asked.some((q) => q.startsWith('?after='))).toBe(true);
    expect(await parts.page.evaluate(() => (window as any).__viewer.step)).toBe(opensAt);
    expect(await parts.page.evaluate(() => (window as any).__viewer.held())).toEqual(wholeHeld);
    expect(parts.errors).toEqual([]);
    await parts.page.close();
  }
  expect(whole.errors).toEqual([]);
  await whole.page.close();
});
