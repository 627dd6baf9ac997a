// /sweeps and /sweeps/:id: every sweep's progress, and one sweep's factor grid, statistics, paired comparison and
// the report's plots (the report's own chart script, fed the same data as `ariadne report` writes).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { loadReport } from '../../reports/report-data.ts';
import { compareAgents } from '../../reports/compare.ts';
import { sweepTotals } from '../../bin/cli/live-status.ts';
import { pageHtml } from '../page-shell.ts';
import { parseRequest, sweepId, text } from '../request-params.ts';
import { listSweeps, sweepCells } from '../queries/sweep-view.ts';
import { NotFound, type ViewerContext } from '../server.ts';

const idParams = z.object({ id: sweepId }).strict();
const pairQuery = z.object({ a: text(200), b: text(200) }).strict();

const LIST_BODY = `<h1>Sweeps</h1>
<p id="count" class="count"></p>
<table id="sweeps" class="grid"></table>`;

const SWEEP_BODY = `<h1 id="title">Sweep</h1>
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
<p class="note" id="plots-note">The statistics and plots read every run's summary: they come a moment after the
grid, and refresh at most every 15 s while runs finish.</p>
<h3>Success rate by maze size</h3><div id="success-charts" class="charts"></div>
<h3>Efficiency of successful runs</h3><div id="efficiency-charts" class="charts"></div>
<h3>Tokens per success</h3><div class="charts"><div class="chart"><canvas id="tokens-chart"></canvas></div></div>
<script id="data" type="application/json">null</script>`;

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
    // the report's chart script is added by sweep.js once the report's data is in #data (it reads it as it runs)
    return reply.type('text/html; charset=utf-8').send(
      pageHtml(
        {
          title: `Sweep ${id}`,
          script: 'sweep.js',
          body: SWEEP_BODY,
          before: ['chart.umd.min.js'],
          styles: ['report.css'],
        },
        ctx.source,
      ),
    );
  });
  // the grid: cheap (the experiments and turns tables), read again on every change to the sweep
  app.get('/api/sweeps/:id', async (request) => {
    const { id } = parseRequest(idParams, request.params);
    const [totals, cells, { rows }] = await Promise.all([
      sweepTotals(ctx.db, id),
      sweepCells(ctx.db, id),
      ctx.db.query<{ description: string | null; cells: number; repeats: number }>(
        "SELECT spec ->> 'description' AS description, cells, repeats FROM sweeps WHERE id = $1",
        [id],
      ),
    ]);
    if (!totals) throw new NotFound(`no sweep named "${id}"; list them with: ariadne list --sweeps`);
    return { sweep: { id, ...rows[0] }, totals, cells };
  });
  // the statistics and plots' data: every run's summary (about a second for a sweep of a million actions)
  app.get('/api/sweeps/:id/report', async (request) => {
    const { id } = parseRequest(idParams, request.params);
    return loadReport(ctx.db, id);
  });
  app.get('/api/sweeps/:id/pair', async (request) => {
    const { id } = parseRequest(idParams, request.params);
    const { a, b } = parseRequest(pairQuery, request.query);
    return compareAgents(ctx.db, id, a, b);
  });
}
