// /sweeps and /sweeps/:id: every sweep's progress, and one sweep's factor grid, statistics, paired comparison and
// the report's plots (the report's own chart script, fed the same data as `ariadne report` writes). Rates,
// intervals and costs are written by the report's own modules (stat-text.ts, stat-format.ts) and sent as text.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { loadReport } from '../../reports/report-data.ts';
import { compareAgents } from '../../reports/compare.ts';
import { cellText, statsRowText } from '../../reports/stat-text.ts';
import { pageHtml } from '../page-shell.ts';
import { int, parseRequest, sweepId, text } from '../request-params.ts';
import { cellHeatmap } from '../../reports/behaviour-heatmap.ts';
import { listSweeps, sweepCells, sweepSummary } from '../queries/sweep-view.ts';
import { NotFound, type ViewerContext } from '../context.ts';

const idParams = z.object({ id: sweepId }).strict();
const pairQuery = z.object({ a: text(200), b: text(200) }).strict();
const cellQuery = z.object({ cell: int(0, 1_000_000) }).strict();

const LIST_BODY = `<h1>Sweeps</h1>
<p id="count" class="count"></p>
<table id="sweeps" class="grid"></table>`;

const SWEEP_BODY = `<h1 id="title">Sweep</h1>
<p id="summary"></p>
<div class="progress" aria-label="progress"><div id="done-bar"></div><div id="running-bar"></div></div>
<h2>Factor grid</h2>
<p class="note">Each cell's runs by their latest attempt. Its interval (Wilson 95%) is counted as the table below
counts: over its independent runs (a deterministic agent's runs that walked the same path count once), errors and
running runs left out; it comes with the statistics.</p>
<table id="cells" class="grid"></table>
<h2>Success by agent, settings and maze (Wilson 95%, over independent runs)</h2>
<div id="plan" class="note"></div>
<table id="stats" class="grid"></table>
<h3>Runs ended by an error</h3>
<p class="note">Not failures of the agent: in no denominator above; "if errors had failed" counts each as one.</p>
<div id="errors"></div>
<h2>Agents ranked (tie groups)</h2>
<p class="note">Every pair of agents within each combination of the other settings, Holm's adjustment over that
group's pairs; rank = 1 + the agents significantly better (Holm p at most 0.05). A tie group is what the data cannot
separate at that level, not a proof that its agents are alike.</p>
<div id="ranking"></div>
<h2>Paired comparison</h2>
<form id="pair" class="filters"><label>a <select name="a"></select></label>
<label>b <select name="b"></select></label><button type="submit">compare</button></form>
<div id="pair-result"></div>
<h2>Where runs went (heatmap)</h2>
<p class="note">Pick a maze and a group (an agent with its settings): its runs on that maze that ended as a success or
a failure (a deterministic agent's copies included: they walk the same path), summed cell by cell. Each cell is
coloured by how often a move entered it (light to dark on a log scale); a dark ring marks a cell where a run that did
not find the goal stopped making progress (after its last step that saw a new tile or entered a new cell); the start is
outlined in violet. Errors, wall-clock stops and running runs are left out.</p>
<form id="heatmap-pick" class="filters"><label>maze <select name="maze"></select></label>
<label>group <select name="group"></select></label></form>
<p id="heatmap-summary" class="note"></p>
<div class="heatmap"><canvas id="heatmap"></canvas><table id="heat-visits" class="grid"></table>
<table id="heat-stuck" class="grid"></table></div>
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
    const [sweep, cells] = await Promise.all([sweepSummary(ctx.db, id), sweepCells(ctx.db, id)]);
    if (!sweep) throw new NotFound(`no sweep named "${id}"; list them with: ariadne list --sweeps`);
    return { sweep, cells };
  });
  // the statistics and plots' data: every run's summary (about a second for a sweep of a million actions), each
  // statistics row with its words, and each grid cell counted the same way
  app.get('/api/sweeps/:id/report', async (request) => {
    const { id } = parseRequest(idParams, request.params);
    const { cells, ...report } = await loadReport(ctx.db, id, { cells: true });
    return {
      ...report,
      statsText: report.stats.map(statsRowText),
      cellStats: (cells ?? []).map((c) => ({ cell_index: c.cell, ...cellText(c) })),
    };
  });
  // one cell's finished runs summed on its maze: every move of them read, so only when a maze and group are picked
  app.get('/api/sweeps/:id/heatmap', async (request) => {
    const { id } = parseRequest(idParams, request.params);
    const { cell } = parseRequest(cellQuery, request.query);
    return cellHeatmap(ctx.db, id, cell);
  });
  app.get('/api/sweeps/:id/pair', async (request) => {
    const { id } = parseRequest(idParams, request.params);
    const { a, b } = parseRequest(pairQuery, request.query);
    return compareAgents(ctx.db, id, a, b);
  });
}
