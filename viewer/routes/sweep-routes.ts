// /sweeps and /sweeps/:id: every sweep's progress, and one sweep's factor grid, statistics, paired comparison and
// the report's plots (the report's own chart script, fed the same data as `ariadne report` writes).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { scriptJson } from '../../reports/html.ts';
import { loadReport } from '../../reports/report-data.ts';
import { compareAgents } from '../../reports/compare.ts';
import { sweepTotals } from '../../bin/cli/live-status.ts';
import { pageHtml } from '../page-shell.ts';
import { parseRequest, sweepId, text } from '../request-params.ts';
import { listSweeps, sweepCells } from '../queries/sweep-view.ts';
import type { ViewerContext } from '../server.ts';

const idParams = z.object({ id: sweepId }).strict();
const pairQuery = z.object({ a: text(200), b: text(200) }).strict();

const LIST_BODY = `<h1>Sweeps</h1>
<p id="count" class="count"></p>
<table id="sweeps" class="grid"></table>`;

const sweepBody = (report: unknown) => `<h1 id="title">Sweep</h1>
<p id="summary"></p>
<div class="progress" aria-label="progress"><div id="done-bar"></div><div id="running-bar"></div></div>
<h2>Factor grid</h2>
<p class="note">Each cell's runs by their latest attempt; its interval counts every finished repeat (the table
below counts a deterministic agent's identical repeats once).</p>
<table id="cells" class="grid"></table>
<h2>Success by agent and maze (Wilson 95%, independent runs)</h2>
<table id="stats" class="grid"></table>
<h2>Paired comparison</h2>
<form id="pair" class="filters"><label>a <select name="a"></select></label>
<label>b <select name="b"></select></label><button type="submit">compare</button></form>
<div id="pair-result"></div>
<h2>Plots</h2>
<p class="note">As of this page's load; reload for runs finished since.</p>
<h3>Success rate by maze size</h3><div id="success-charts" class="charts"></div>
<h3>Efficiency of successful runs</h3><div id="efficiency-charts" class="charts"></div>
<h3>Tokens per success</h3><div class="charts"><div class="chart"><canvas id="tokens-chart"></canvas></div></div>
<script id="data" type="application/json">${scriptJson(report)}</script>`;

export function registerSweepRoutes(app: FastifyInstance, ctx: ViewerContext): void {
  app.get('/sweeps', async (request, reply) => {
    parseRequest(z.object({}).strict(), request.query);
    return reply
      .type('text/html; charset=utf-8')
      .send(pageHtml({ title: 'Sweeps', script: 'sweeps.js', body: LIST_BODY }, ctx.source));
  });
  app.get('/api/sweeps', async () => ({ sweeps: await listSweeps(ctx.db) }));

  app.get('/sweeps/:id', async (request, reply) => {
    const { id } = parseRequest(idParams, request.params);
    parseRequest(z.object({}).strict(), request.query);
    const report = await loadReport(ctx.db, id); // an unknown sweep: 404 with the names to try
    return reply.type('text/html; charset=utf-8').send(
      pageHtml(
        {
          title: `Sweep ${id}`,
          script: 'sweep.js',
          body: sweepBody(report),
          before: ['chart.umd.min.js', 'report.js'],
          styles: ['report.css'],
        },
        ctx.source,
      ),
    );
  });
  app.get('/api/sweeps/:id', async (request) => {
    const { id } = parseRequest(idParams, request.params);
    const report = await loadReport(ctx.db, id);
    const [totals, cells] = await Promise.all([sweepTotals(ctx.db, id), sweepCells(ctx.db, id)]);
    return { sweep: report.sweep, totals, cells, stats: report.stats, pairs: report.pairs };
  });
  app.get('/api/sweeps/:id/pair', async (request) => {
    const { id } = parseRequest(idParams, request.params);
    const { a, b } = parseRequest(pairQuery, request.query);
    return compareAgents(ctx.db, id, a, b);
  });
}
