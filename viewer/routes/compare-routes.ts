// /compare?ids=A,B: runs of one maze side by side with their paths overlaid; the page and its JSON.
import type { FastifyInstance } from 'fastify';
import { pageHtml } from '../page-shell.ts';
import { parseRequest } from '../request-params.ts';
import { compareQuery, compareRuns } from '../queries/compare-runs.ts';
import type { ViewerContext } from '../context.ts';

const BODY = `<h1>Compare</h1>
<p id="intro" class="na">Pick two to eight runs of one maze in the <a href="/">experiments table</a> (tick them, then
"compare"), or give their ids: <code>/compare?ids=A,B</code>.</p>
<div class="experiment">
<section class="board" id="board" hidden>
<canvas id="maze" aria-label="the maze with every run's path"></canvas>
<div class="controls">
<label>step <input id="scrub" type="range" min="0" value="0" step="1" aria-label="step"></label>
<span id="step"></span>
</div>
<p class="legend" id="legend"></p>
</section>
<aside><table id="runs" class="grid"></table></aside>
</div>`;

export function registerCompareRoutes(app: FastifyInstance, ctx: ViewerContext): void {
  app.get('/compare', async (request, reply) => {
    // without ids the page explains how to pick; with them they must be valid
    const query = request.query as Record<string, unknown>;
    if (Object.keys(query).length > 0) parseRequest(compareQuery, query);
    return reply
      .type('text/html; charset=utf-8')
      .send(pageHtml({ title: 'Compare', script: 'compare.js', body: BODY, styles: ['maze-legend.css'] }, ctx.source));
  });
  app.get('/api/compare', async (request) => {
    const { ids } = parseRequest(compareQuery, request.query);
    return compareRuns(ctx.db, ids, ctx.pageRows);
  });
}
