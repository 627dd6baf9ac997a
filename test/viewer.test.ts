// `ariadne view` in a real headless Chromium: the experiments table and one experiment render without a console
// error and match the database, a running experiment's new actions reach both pages live, a stale one is flagged
// with its reason, and hostile URLs are refused by name. Plus the command itself as a user runs it.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Agent, AgentFactory } from '../core/engine/agent.ts';
import { openDatabase } from '../core/store/database.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { startViewer, type RunningViewer } from '../viewer/server.ts';
import { openPage, screenshotPath } from './support/browser.ts';
import { viewerSession } from './support/viewer-session.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { ariadneProcess, outputOf } from './support/cli.ts';
import { providerSims } from './support/provider-sims.ts';

const sims = providerSims();

let db: TestDatabase;
let browser: Browser;
let viewer: RunningViewer;
let close: (() => Promise<void>) | undefined;
const finished: string[] = [];

/**
 * An agent whose replies after the first wait for `release()`: a run that stays running while a test looks. A turn
 * asks again until it has max_actions_per_turn actions, so each reply should fill one.
 */
function gatedAgents(moves: string[][]) {
  let turn = 0;
  const gates: Array<() => void> = [];
  const waits: Array<Promise<void>> = moves.map((_, i) =>
    i === 0 ? Promise.resolve() : new Promise<void>((resolve) => gates.push(resolve)),
  );
  const agent: Agent = {
    callsModel: true,
    async act() {
      const k = turn++;
      await waits[Math.min(k, waits.length - 1)];
      return {
        calls: (moves[k] ?? []).map((name) => ({ name, arguments: { reasoning: `gated ${name}` } })),
        text: `turn ${k + 1}`,
      };
    },
  };
  const factory: AgentFactory = () => agent;
  return { factory, release: () => gates.shift()?.() };
}

/**
 * A run of the gated agent on a small open maze, each reply one full turn of `moves[k]`; resolves once its first
 * turn is in the database, with its id, the gate and the run's promise.
 */
async function runningExperiment(moves: string[][], seed: number) {
  const gate = gatedAgents(moves);
  const run = runLocalExperiment(
    {
      agent: 'random',
      maze: { generator: 'open_field', size: 9, seed },
      config: { max_moves: moves.flat().length, max_actions_per_turn: moves[0].length },
    },
    { db, agents: gate.factory },
  );
  const id = await until('the first turn', async () => {
    const { rows } = await db.pool.query(
      "SELECT id FROM experiments WHERE status = 'running' AND turns_completed >= 1 ORDER BY started_at DESC",
    );
    return rows[0]?.id as string | undefined;
  });
  return { id, gate, run };
}

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) {
      const { rows } = await db.pool.query('SELECT id, status, turns_completed FROM experiments');
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(rows)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

const actionsOf = async (id: string) =>
  Number(
    (await db.pool.query('SELECT count(*) FROM actions WHERE experiment_id = $1 AND executed', [id])).rows[0].count,
  );

beforeAll(async () => {
  db = await testDatabase();
  for (const [agent, seed] of [
    ['frontier', 3],
    ['random', 4],
  ] as const) {
    const r = await runLocalExperiment(
      { agent, agentSeed: seed, maze: { generator: 'perfect', size: 15, seed }, config: { max_moves: 300 } },
      { db },
    );
    finished.push(r.experimentId!);
  }
  ({ browser, viewer, close } = await viewerSession(db));
});

afterAll(() => close?.());

describe('the experiments table', () => {
  it('lists every experiment with the numbers the database holds, without a console error', async () => {
    const { page, errors } = await openPage(browser, viewer.url);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    const rows = await page.$$eval('#experiments tbody tr', (trs) =>
      trs.map((tr) => ({
        id: tr.getAttribute('data-id'),
        cells: Array.from(tr.querySelectorAll('td')).map((td) => td.textContent?.trim()),
      })),
    );
    const { rows: expected } = await db.pool.query('SELECT id, actions_taken FROM experiments ORDER BY id');
    expect(rows.map((r) => r.id).sort()).toEqual(expected.map((r) => r.id));
    for (const e of expected) {
      const shown = rows.find((r) => r.id === e.id)!;
      expect(shown.cells).toContain(Number(e.actions_taken).toLocaleString('en-US'));
    }
    await page.screenshot({ path: screenshotPath('viewer-experiments.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows each id as its shortest distinct prefix at 1024 px, whole in its title, with a copy button', async () => {
    const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: viewer.url });
    const page = await context.newPage();
    await page.goto(viewer.url);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    const links = await page.$$eval('#experiments tbody td.id a.id', (as) =>
      as.map((a) => ({ text: a.textContent ?? '', title: a.getAttribute('title') ?? '' })),
    );
    const ids = links.map((l) => l.title);
    expect(ids.sort()).toEqual((await db.pool.query('SELECT id FROM experiments ORDER BY id')).rows.map((r) => r.id));
    for (const { text, title } of links) {
      const prefix = text.endsWith('\u2026') ? text.slice(0, -1) : text;
      expect(title.startsWith(prefix), text).toBe(true);
      expect(prefix.length).toBeGreaterThanOrEqual(8);
      // no other id on the page starts with it
      expect(ids.filter((id) => id.startsWith(prefix))).toEqual([title]);
    }
    // these ids are random: eight characters tell them apart
    expect(links.some((l) => l.text.length < l.title.length)).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    // the button next to an id copies the whole id
    const first = page.locator('#experiments tbody td.id').first();
    await first.locator('button.copy-id').click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      await first.locator('a.id').getAttribute('title'),
    );
    await context.close();
  });

  it('sorts by a column and filters by the URL, as the API does', async () => {
    const { page, errors } = await openPage(browser, `${viewer.url}?sort=actions&dir=asc&outcome=success`);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    const ids = await page.$$eval('#experiments tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-id')));
    const { rows } = await db.pool.query(
      'SELECT id FROM experiments WHERE goal_found ORDER BY actions_taken ASC, id LIMIT 200',
    );
    expect(ids).toEqual(rows.map((r) => r.id));
    expect(await page.inputValue('select[name=outcome]')).toBe('success');
    // a click on a header sorts by it, the other way round on a second click
    await page.click('th[data-sort="actions"]');
    await page.waitForFunction(() => (window as any).__viewer.loads >= 2);
    expect(page.url()).toContain('dir=desc');
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('one experiment', () => {
  it('draws the run: its steps, the agent where the database puts it, the turn panel', async () => {
    const id = finished[1];
    const { page, errors } = await openPage(browser, `${viewer.url}experiments/${id}?step=5`);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    expect(await page.evaluate(() => (window as any).__viewer.steps)).toBe(await actionsOf(id));
    const { rows } = await db.pool.query(
      'SELECT to_x, to_y, turn_number FROM actions WHERE experiment_id = $1 AND step_number = 5',
      [id],
    );
    expect(await page.evaluate(() => (window as any).__viewer.go(5))).toEqual({
      step: 5,
      x: rows[0].to_x,
      y: rows[0].to_y,
    });
    // the agent is drawn red at its cell
    const px = await page.evaluate(() => {
      const { x, y } = (window as any).__viewer.agentPixel();
      const d = (document.getElementById('maze') as HTMLCanvasElement).getContext('2d')!.getImageData(x, y, 1, 1).data;
      return [d[0], d[1], d[2]];
    });
    expect(px).toEqual([220, 38, 38]);
    // the turn panel shows the turn of step 5 with step 5 marked
    await page.waitForSelector('#turn-detail tr.current[data-step="5"]');
    expect(await page.textContent('#turn-number')).toBe(String(rows[0].turn_number));
    await page.screenshot({ path: screenshotPath('viewer-experiment.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('folds a long list of stuck signals after the first few, "N more", so the turn detail stays in view', async () => {
    const id = finished[1];
    const { rows } = await db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM stuck_signals WHERE experiment_id = $1',
      [id],
    );
    // the random walker keeps tripping the detectors: far more signals than a panel can show
    expect(rows[0].n).toBeGreaterThan(10);
    const steps = await actionsOf(id);
    const { page, errors } = await openPage(browser, `${viewer.url}experiments/${id}?step=${steps}`);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    await page.evaluate((s) => (window as any).__viewer.go(s), steps);
    const panel = await page.$eval('#signals', (dd) => ({
      shown: (dd.firstChild?.textContent ?? '').split('\n').length,
      more: dd.querySelector('details.more > summary')?.textContent,
      open: dd.querySelector('details.more')?.hasAttribute('open'),
    }));
    expect(panel).toEqual({ shown: 5, more: `${rows[0].n - 5} more`, open: false });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows a model's run: its system prompt, and each turn's calls with their tokens and latency", async () => {
    const { experimentId } = await runLocalExperiment(
      {
        agent: 'ollama',
        model: 'qwen2.5:7b',
        maze: { generator: 'medium', size: 11, seed: 3 },
        config: { ollama: { host: sims.ollamaUrl }, max_moves: 12 },
      },
      { db },
    );
    const { page, errors } = await openPage(browser, `${viewer.url}experiments/${experimentId}?step=1`);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    const { rows } = await db.pool.query('SELECT prompt_text FROM experiments WHERE id = $1', [experimentId]);
    expect(await page.textContent('#prompt-text')).toBe(rows[0].prompt_text);
    const { rows: calls } = await db.pool.query(
      'SELECT input_tokens, output_tokens, latency_ms FROM llm_calls WHERE experiment_id = $1 AND turn_number = 1 ' +
        'ORDER BY call_index',
      [experimentId],
    );
    const n = (v: number) => v.toLocaleString('en-US'); // as the page writes numbers
    await page.waitForSelector('#turn-detail .call');
    const heads = await page.$$eval('#turn-detail .call-head', (ds) => ds.map((d) => d.textContent));
    expect(heads).toHaveLength(calls.length);
    heads.forEach((h, k) =>
      expect(h).toContain(
        `${n(calls[k].input_tokens)} in, ${n(calls[k].output_tokens)} out, ${n(calls[k].latency_ms)} ms`,
      ),
    );
    expect(errors).toEqual([]);
    await page.close();
  });

  it('serves a finished run again from its cache until the run changes', async () => {
    const id = finished[0];
    const first = await (await fetch(`${viewer.url}api/experiments/${id}`)).text();
    expect(await (await fetch(`${viewer.url}api/experiments/${id}`)).text()).toBe(first);
    await db.pool.query(
      "UPDATE experiments SET failure_reason = 'noted later', updated_at = updated_at + interval '1 ms' WHERE id = $1",
      [id],
    );
    const after = await (await fetch(`${viewer.url}api/experiments/${id}`)).json();
    expect(after.experiment.failure_reason).toBe('noted later');
    await db.pool.query(
      "UPDATE experiments SET failure_reason = NULL, updated_at = updated_at + interval '1 ms' WHERE id = $1",
      [id],
    );
  });

  it('answers 404 for an id that does not exist, on the page and in the API', async () => {
    const res = await fetch(`${viewer.url}api/experiments/no-such-run`);
    expect(res.status).toBe(404);
    expect((await res.json()).error.name).toBe('ExperimentNotFoundError');
    const { page } = await openPage(browser, `${viewer.url}experiments/no-such-run`);
    await page.waitForSelector('#problem:not([hidden])');
    expect(await page.textContent('#problem')).toContain('no experiment with id no-such-run');
    await page.close();
  });
});

describe('live', () => {
  it('shows an action a running experiment writes within 2 s, on the experiment page and the table', async () => {
    const { id, gate, run } = await runningExperiment(
      [
        ['move_east', 'move_south', 'move_west'],
        ['move_north', 'move_east', 'move_south'],
      ],
      2,
    );
    const before = await actionsOf(id);
    const exp = await openPage(browser, `${viewer.url}experiments/${id}`);
    await exp.page.waitForFunction(() => (window as any).__viewer?.ready);
    expect(await exp.page.evaluate(() => (window as any).__viewer.steps)).toBe(before);
    const list = await openPage(browser, viewer.url);
    await list.page.waitForFunction(() => (window as any).__viewer?.ready);
    await list.page.waitForSelector('.live-state.on');
    await exp.page.waitForSelector('.live-state.on');

    gate.release();
    const after = await until('the second turn', async () => {
      const n = await actionsOf(id);
      return n > before ? n : undefined;
    });
    // from the moment the turn is in the database: both pages show it within 2 s
    await exp.page.waitForFunction((n) => (window as any).__viewer.steps === n, after, { timeout: 2000 });
    expect(await exp.page.evaluate(() => (window as any).__viewer.step)).toBe(after); // it follows the run
    await list.page.waitForFunction(
      ([rid, n]) =>
        Array.from(document.querySelectorAll(`#experiments tr[data-id="${rid}"] td`)).some(
          (td) => td.textContent === n,
        ),
      [id, String(after)] as const,
      { timeout: 2000 },
    );
    gate.release();
    await run;
    expect(exp.errors).toEqual([]);
    expect(list.errors).toEqual([]);
    await exp.page.close();
    await list.page.close();
  });

  it('flags a running experiment that stopped reporting, with why', async () => {
    const { id, gate, run } = await runningExperiment([['move_east'], ['move_west']], 5);
    // an hour later by the viewer's clock, no turn has come
    const later = await startViewer({ db, source: 'test', pollMs: 1000, now: () => new Date(Date.now() + 3600_000) });
    try {
      const { page, errors } = await openPage(browser, `${later.url}?status=running`);
      await page.waitForFunction(() => (window as any).__viewer?.ready);
      const why = await page.textContent(`#experiments tr[data-id="${id}"] .why`);
      expect(why).toMatch(/^no turn recorded for 60 min \(a turn takes at most \d+ (s|min)\)$/);
      expect(await page.textContent('#count')).toContain('1 stale');
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await later.close();
      gate.release();
      await run;
    }
  });
});

/** A GET with the path exactly as written (fetch would resolve "../" before sending). */
function rawGet(url: string, path: string, headers: Record<string, string> = {}) {
  const { hostname, port } = new URL(url);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('hostile input', () => {
  const refused = async (path: string, field: string) => {
    const res = await fetch(`${viewer.url}${path}`);
    expect(res.status, path).toBe(400);
    const { error } = await res.json();
    expect(error.name).toBe('InvalidRequestError');
    expect(error.field).toBe(field);
    expect(error.message).toContain(`${field}=`);
  };

  it('refuses ids, filters and sort columns outside what they can be, naming the field', async () => {
    await refused("api/experiments/abc'%20OR%201=1", 'id');
    await refused(`api/experiments/${'a'.repeat(65)}`, 'id');
    await refused('api/experiments?status=bogus', 'status');
    await refused('api/experiments?sort=cost;DROP%20TABLE%20experiments', 'sort');
    await refused('api/experiments?limit=100000', 'limit');
    await refused('api/experiments?offset=-1', 'offset');
    await refused('api/experiments?model=a%00b', 'model');
    await refused('api/experiments?sweep=..%2F..', 'sweep');
    await refused('api/experiments?maze=perfect:abc', 'maze');
    await refused('api/experiments?evil=1', 'evil');
    await refused(`api/experiments/${finished[0]}/turns?count=5000`, 'count');
    // and nothing was changed by any of it
    expect(Number((await db.pool.query('SELECT count(*) FROM experiments')).rows[0].count)).toBeGreaterThan(0);
  });

  it('serves only its own assets: a path outside them is refused', async () => {
    expect((await rawGet(viewer.url, '/assets/viewer.css')).status).toBe(200);
    for (const path of [
      '/assets/../package.json',
      '/assets/..%2fpackage.json',
      '/assets/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '/assets/..%5c..%5cpackage.json',
      '/../../etc/passwd',
      '/assets/replay-data.ts',
      '/viewer/server.ts',
    ]) {
      const res = await rawGet(viewer.url, path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).not.toContain('"name": "ariadne"');
      expect(res.body, path).not.toContain('root:');
    }
  });

  it('answers only GET, only to its own host name, with a policy that allows no other script', async () => {
    const res = await fetch(viewer.url);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await fetch(`${viewer.url}api/experiments`, { method: 'POST', body: 'x' })).status).toBe(404);
    expect((await fetch(`${viewer.url}api/experiments`, { method: 'DELETE' })).status).toBe(404);
    // a page on another site reaching this port by DNS rebinding sends its own host name
    expect((await rawGet(viewer.url, '/api/experiments', { host: 'attacker.example:80' })).status).toBe(403);
    expect(new URL(viewer.url).hostname).toBe('127.0.0.1');
  });
});

describe('over the RDS Data API (ariadne view --aws)', () => {
  it('answers the same table, experiment and turns as over pg, and its live stream runs', async () => {
    const dapi = await testDatabase({ transport: 'data-api' });
    const pgSide = await openDatabase({ url: dapi.url, schema: dapi.schema, readOnly: true, poolSize: 2 });
    const overApi = await startViewer({ db: dapi, source: 'Data API', pollMs: 1000 });
    const overPg = await startViewer({ db: pgSide, source: 'pg', pollMs: 1000 });
    try {
      const { experimentId } = await runLocalExperiment(
        {
          agent: 'frontier',
          agentSeed: 1,
          maze: { generator: 'perfect', size: 11, seed: 9 },
          config: { max_moves: 80 },
        },
        { db: dapi },
      );
      for (const path of [
        'api/experiments?sort=actions',
        `api/experiments/${experimentId}`,
        `api/experiments/${experimentId}/turns?from=1&count=100`,
      ]) {
        const [a, b] = await Promise.all([overApi, overPg].map(async (v) => (await fetch(v.url + path)).json()));
        expect(a, path).toEqual(b);
        expect(a.error, path).toBeUndefined();
      }
      const { page, errors } = await openPage(browser, `${overApi.url}experiments/${experimentId}`);
      await page.waitForFunction(() => (window as any).__viewer?.ready);
      await page.waitForSelector('.live-state.on'); // the change feed's first read went through the Data API
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await overApi.close();
      await overPg.close();
      await pgSide.close();
      await dapi.drop();
    }
  });
});

describe('read-only', () => {
  it("the local viewer's connection cannot write: the server refuses it", async () => {
    const ro = await openDatabase({ url: db.url, schema: db.schema, readOnly: true, poolSize: 1 });
    try {
      await expect(ro.query("UPDATE experiments SET status = 'failed'")).rejects.toMatchObject({ code: '25006' });
      expect((await ro.query('SELECT count(*)::int AS n FROM experiments')).rows[0].n).toBeGreaterThan(0);
    } finally {
      await ro.close();
    }
  });
});

describe('ariadne view', () => {
  it('prints its URL, serves the experiments of its database, and stops on SIGTERM', async () => {
    const child = ariadneProcess(['view', '--port', '0'], { DATABASE_URL: db.url, DATABASE_SCHEMA: db.schema });
    const done = outputOf(child);
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const m = /^(http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('close', () => reject(new Error(`ariadne view ended before printing its URL: ${out}`)));
    });
    const list = await (await fetch(`${url}api/experiments`)).json();
    expect(list.total).toBe(Number((await db.pool.query('SELECT count(*) FROM experiments')).rows[0].count));
    // a second viewer on the same port: refused with what to do, exit 3 (an environment problem)
    const port = new URL(url).port;
    const second = await outputOf(
      ariadneProcess(['view', '--port', port], { DATABASE_URL: db.url, DATABASE_SCHEMA: db.schema }),
    );
    expect(second.code).toBe(3);
    expect(second.stderr).toContain(`port ${port} on 127.0.0.1 is in use`);
    expect(second.stderr).toContain('--port 0');
    child.kill('SIGTERM');
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('read-only');
  });
});
