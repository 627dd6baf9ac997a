// The experiments table (/) and one experiment (/experiments/:id): the pages, and the JSON they read.
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { loadReplay, loadReplayAfter } from '../../reports/replay-data.ts';
import { staleReason } from '../../results/live-status.ts';
import { experimentRecord } from '../../results/experiment-record.ts';
import { experimentTable } from '../../results/experiment-table.ts';
import { loadTurns } from '../../results/experiment-turns.ts';
import { runLineage, type RunLineage } from '../../results/run-lineage.ts';
import { pageHtml } from '../page-shell.ts';
import { escapeHtml } from '../../reports/html.ts';
import { ReplayCache } from '../replay-cache.ts';
import { ExperimentNotFoundError } from '../../core/errors.ts';
import { experimentId, int, parseRequest } from '../request-params.ts';
import { listQuery } from '../queries/experiment-list.ts';
import { turnsQuery } from '../queries/experiment-turns.ts';
import type { ViewerContext } from '../context.ts';

const idParams = z.object({ id: experimentId }).strict();
/** `step`: the step the page opens at; `head`: the steps its first read holds (HEAD_STEPS unless asked). */
const experimentQuery = z
  .object({ step: z.coerce.number().int().min(0).max(10_000_000).optional(), head: int(1, 10_000_000).optional() })
  .strict();
/**
 * `after`: the last turn a page holds; it is sent only what came after (loadReplayAfter), not the run. `head`: the
 * turns up to the one of that step only, so a long run draws before the rest arrives (by `after`).
 */
const replayQuery = z
  .object({ after: int(0, 10_000_000).optional(), head: int(1, 10_000_000).optional() })
  .strict()
  .refine((q) => q.after === undefined || q.head === undefined, { message: 'ask for after or head, not both' });
/**
 * The steps a page's first read holds unless its URL asks (`?head=`): the first frame needs only the step it opens
 * at and what was seen by then, and the rest follows at once, by `after`. 500 steps of a 10,000-action run are read
 * in a few ms (2,000 took 30-45 ms at load average 6, most of it the cones' JSON decoded row by row).
 */
const HEAD_STEPS = 500;

/** Where an experiment's page holds its first read (streamed after the rest of the page above it). */
const FIRST_READ_SLOT = '<!--first-read-->';

/**
 * The first read as a data block, which no Content-Security-Policy runs; every `<` escaped (JSON allows \u003c in
 * its strings, the only place one can be), so no text of the run can end the element. `data-src`: the same read from
 * the API, which the page asks when the block holds null or to read the run again.
 */
function firstRead(id: string, steps: number, json: string): string {
  const src = `/api/experiments/${encodeURIComponent(id)}?head=${steps}`;
  return (
    `<script type="application/json" id="first-read" data-src="${escapeHtml(src)}">` +
    `${json.replaceAll('<', '\\u003c')}</script>`
  );
}

const LIST_BODY = `<h1>Experiments</h1>
<form id="filters" class="filters">
<label>sweep <select name="sweep"><option value="">any</option></select></label>
<label>model <select name="model"><option value="">any</option></select></label>
<label>maze <select name="maze"><option value="">any</option></select></label>
<label>status <select name="status"><option value="">any</option></select></label>
<label>outcome <select name="outcome"><option value="">any</option></select></label>
</form>
<p id="count" class="count"></p>
<table id="experiments" class="grid"><thead></thead><tbody></tbody></table>
<p class="pager"><button id="prev" type="button">previous</button> <button id="next" type="button">next</button></p>`;

const EXPERIMENT_BODY = `<h1 id="title">Experiment</h1>
<p id="headline"></p>
<details id="prompt" hidden><summary>system prompt</summary><pre id="prompt-text"></pre></details>
<div class="experiment">
<section class="board">
<canvas id="maze" aria-label="the maze at the current step"></canvas>
<div class="controls">
<button id="back" type="button" title="step back (Left)">&#9664;</button>
<button id="play" type="button" title="play / pause (Space)">Play</button>
<button id="forward" type="button" title="step forward (Right)">&#9654;</button>
<label class="follow"><input id="follow" type="checkbox" checked> follow live</label>
<label>speed <select id="speed"><option>2</option><option selected>10</option><option>50</option>
<option>250</option><option>1000</option></select>/s</label>
</div>
<div class="timeline"><canvas id="timeline" aria-label="timeline: stuck signals and turns"></canvas>
<input id="scrub" type="range" min="0" value="0" step="1" aria-label="step"></div>
<p class="legend"><span class="k known"></span>seen <span class="k unknown"></span>not yet seen
<span class="k cone"></span>in view now <span class="k agent"></span>agent <span class="k start"></span>start
<span class="k goal"></span>goal <span class="k signal"></span>stuck signal</p>
</section>
<aside>
<dl class="now"><dt>step</dt><dd id="step"></dd><dt>position</dt><dd id="position"></dd><dt>turn</dt>
<dd id="turn"></dd><dt>action</dt><dd id="action"></dd><dt>phase</dt><dd id="phase"></dd>
<dt>stuck signals</dt><dd id="signals" class="pre"></dd></dl>
<h2>Turn <span id="turn-number"></span></h2>
<div id="turn-detail" class="turn-detail"></div>
</aside>
</div>`;

/** A run's replay JSON (an object) with its lineage first; null when it has none. */
function withLineage(body: string, lineage: RunLineage | null): string {
  return `{"lineage":${JSON.stringify(lineage)},${body.slice(1)}`;
}

/** The replay JSON of a run as its page and the API send it: a finished run's kept by the run's last change. */
function replayReader(ctx: ViewerContext) {
  const cache = new ReplayCache();
  /**
   * The replay JSON of `id`: the turns after `after`, or the head of `head` steps, or the whole run; the last two
   * with the run's lineage, read each time: a replay or fork made since changes it, not the run's own row.
   */
  const replayBody = async (id: string, after: number | undefined, head: number | undefined): Promise<string> => {
    if (after !== undefined) return runBody(id, after, head);
    const [body, lineage] = await Promise.all([runBody(id, after, head), runLineage(ctx.db, id)]);
    return withLineage(body, lineage);
  };
  const runBody = async (id: string, after: number | undefined, head: number | undefined): Promise<string> => {
    const row = await experimentRecord(ctx.db, id);
    if (!row) throw new ExperimentNotFoundError(id);
    const version = new Date(row.updated_at).toISOString();
    const running = row.status === 'running';
    const stale = running && !row.interrupted ? staleReason(new Date(row.updated_at), ctx.now()) : null;
    // a finished run's answers never change: each kept by what was asked
    const key = after !== undefined ? `${id}?after=${after}` : head !== undefined ? `${id}?head=${head}` : id;
    let body = running ? undefined : cache.get(key, version);
    if (body === undefined && after !== undefined) {
      const update = await loadReplayAfter(ctx.db, id, after, { pageRows: ctx.pageRows });
      body = JSON.stringify({ ...update, stale, interrupted: row.interrupted });
    } else if (body === undefined) {
      const replay = await loadReplay(ctx.db, id, { pageRows: ctx.pageRows, headSteps: head });
      body = JSON.stringify({
        ...replay,
        seenAt: undefined, // the page derives it from the cones it holds (experiment.js seenFrom): a quarter of a head
        sweep_id: row.sweep_id,
        label: row.label,
        prompt: row.prompt_text === null ? null : { version: row.prompt_version, text: row.prompt_text },
        stale,
        interrupted: row.interrupted,
        simulated: row.simulated,
        prompt_truncated_calls: row.prompt_truncated_calls,
      });
    }
    if (!running) cache.set(key, version, body);
    return body;
  };
  return replayBody;
}

export function registerExperimentRoutes(app: FastifyInstance, ctx: ViewerContext): void {
  const replayBody = replayReader(ctx);
  app.get('/', async (request, reply) => {
    parseRequest(listQuery, request.query);
    return reply
      .type('text/html; charset=utf-8')
      .send(pageHtml({ title: 'Experiments', script: 'experiments.js', body: LIST_BODY }, ctx.source));
  });
  app.get('/api/experiments', async (request) =>
    experimentTable(ctx.db, parseRequest(listQuery, request.query), ctx.now()),
  );

  app.get('/experiments/:id', async (request, reply) => {
    const { id } = parseRequest(idParams, request.params);
    const { step, head } = parseRequest(experimentQuery, request.query);
    const steps = Math.max(head ?? HEAD_STEPS, step ?? 0, 1);
    const html = pageHtml(
      {
        title: `Experiment ${id}`,
        script: 'experiment.js',
        body: `${EXPERIMENT_BODY}\n${FIRST_READ_SLOT}`,
        styles: ['maze-legend.css'],
      },
      ctx.source,
    );
    // the page's first read goes in the page itself, after the markup and links the browser can fetch meanwhile: no
    // request of its own after the HTML (experiment.js reads it from #first-read; null: ask the API, which says why)
    const [top, bottom] = html.split(FIRST_READ_SLOT);
    const page = new PassThrough();
    page.write(top);
    void replayBody(id, undefined, steps).then(
      (body) => page.end(firstRead(id, steps, body) + bottom),
      () => page.end(firstRead(id, steps, 'null') + bottom),
    );
    return reply.type('text/html; charset=utf-8').send(page);
  });
  app.get('/api/experiments/:id', async (request, reply) => {
    const { id } = parseRequest(idParams, request.params);
    const { after, head } = parseRequest(replayQuery, request.query);
    return reply.type('application/json; charset=utf-8').send(await replayBody(id, after, head));
  });
  app.get('/api/experiments/:id/turns', async (request) => {
    const { id } = parseRequest(idParams, request.params);
    const { from, count } = parseRequest(turnsQuery, request.query);
    return { turns: await loadTurns(ctx.db, id, from, count) };
  });
}
