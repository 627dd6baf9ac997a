// One sweep: progress and cost so far, the factor grid (a row per cell: its runs by latest attempt, successes with
// their interval), refreshed live when one of its runs changes; the per-agent statistics and the report's plots
// (report.js, drawn once from the report's data put in #data), read after the grid since they cost more; a paired
// comparison of two agents on demand.
import { api, el, fmt, live, shown, tableParts, throttled } from './common.js';

const id = decodeURIComponent(location.pathname.split('/').pop());
const $ = (x) => document.getElementById(x);
let labels = [];

const interval = (lo, hi) => (lo === null || lo === undefined ? '-' : `${fmt.pct(lo)} - ${fmt.pct(hi)}`);

const markOf = (r) =>
  r.status === 'running' ? 'running' : r.status === 'failed' ? 'failed' : r.goal_found ? 'ok' : 'no';

/** A cell's repeats as one mark each: done and found, done and not, failed, running; linked to the run. */
function repeats(cell, planned) {
  const marks = cell.runs.map((r) =>
    el(
      'a',
      {
        class: `rep ${markOf(r)}`,
        href: `/experiments/${encodeURIComponent(r.experiment_id)}`,
        title: `repeat ${r.repeat}: ${r.status}${r.goal_found ? ', goal found' : ''}`,
      },
      '',
    ),
  );
  for (let k = cell.runs.length; k < planned; k++) marks.push(el('span', { class: 'rep todo', title: 'not started' }));
  return marks;
}

const settingsText = (s) =>
  Object.entries(s ?? {})
    .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`)
    .join(' ');

function render(data) {
  const t = data.totals;
  $('title').textContent = `Sweep ${data.sweep.id}`;
  const done = t.completed + t.failed;
  $('summary').textContent =
    `${data.sweep.description ?? ''} ${data.sweep.cells} cells x ${data.sweep.repeats} repeats: ` +
    `${fmt.int(done)} of ${fmt.int(t.runs)} runs done, ${fmt.int(t.running)} running, ` +
    `${fmt.int(t.runs - t.started)} not started, ${fmt.int(t.failed)} failed; ` +
    `goal found in ${fmt.int(t.goal_found)}; ` +
    `${fmt.int(t.actions)} actions, ${fmt.usd(t.cost_usd)} so far`;
  $('done-bar').style.width = `${t.runs ? (100 * done) / t.runs : 0}%`;
  $('running-bar').style.width = `${t.runs ? (100 * t.running) / t.runs : 0}%`;
  const head = ['cell', 'agent', 'maze', 'settings', 'repeats', 'done', 'running', 'failed', 'success', '95% interval'];
  $('cells').replaceChildren(
    ...tableParts(
      [...head, 'actions', 'cost'],
      data.cells.map((c) =>
        el(
          'tr',
          { 'data-cell': c.cell_index },
          el('td', { class: 'n' }, c.cell_index),
          el('td', {}, c.label),
          el('td', {}, `${c.maze_generator} ${c.maze_size} seed ${c.maze_seed}`),
          el('td', { class: 'settings' }, settingsText(c.settings)),
          el('td', { class: 'reps' }, repeats(c, data.sweep.repeats)),
          el('td', { class: 'n done' }, `${c.done} / ${data.sweep.repeats}`),
          el('td', { class: 'n' }, c.running),
          el('td', { class: 'n' }, c.failed),
          el('td', { class: 'n successes' }, `${c.successes} / ${c.done}`),
          el('td', { class: 'n' }, interval(c.success_low95, c.success_high95)),
          el('td', { class: 'n' }, fmt.int(c.actions)),
          el('td', { class: 'n' }, fmt.usd(c.cost_usd)),
        ),
      ),
    ),
  );
  const found = [...new Set(data.cells.map((c) => c.label))].sort();
  if (found.join() !== labels.join()) {
    labels = found;
    const form = $('pair');
    for (const [name, pick] of [
      ['a', 0],
      ['b', 1],
    ])
      form.elements[name].replaceChildren(
        ...labels.map((l, k) => el('option', { value: l, selected: k === Math.min(pick, labels.length - 1) }, l)),
      );
  }
}

/** The per-agent statistics from the report's data (sweep_stats: intervals over independent runs). */
function renderStats(report) {
  const statsHead = ['agent', 'maze', 'size', 'runs', 'independent', 'successes', 'success', '95% interval'];
  $('stats').replaceChildren(
    ...tableParts(
      [...statsHead, 'mean eff.', 'cost/run'],
      report.stats.map((s) =>
        el(
          'tr',
          {},
          el('td', {}, s.label),
          el('td', {}, s.maze_generator),
          el('td', { class: 'n' }, s.maze_size),
          el('td', { class: 'n' }, s.n),
          el('td', { class: 'n' }, s.n_independent ?? s.n),
          el('td', { class: 'n' }, s.successes),
          el('td', { class: 'n' }, fmt.pct(s.success_rate)),
          el('td', { class: 'n' }, interval(s.success_low95, s.success_high95)),
          el('td', { class: 'n' }, fmt.num(s.mean_efficiency)),
          el('td', { class: 'n' }, fmt.usd(s.cost_per_experiment)),
        ),
      ),
    ),
  );
}

let plotted = false;
/** The report's data: the statistics table, and the first time, the report's plots (report.js reads #data). */
async function loadReport() {
  const report = await shown(() => api(`/api/sweeps/${encodeURIComponent(id)}/report`));
  if (!report) return;
  renderStats(report);
  if (!plotted) {
    plotted = true;
    $('data').textContent = JSON.stringify(report);
    document.body.append(el('script', { src: '/assets/report.js' }));
  }
  window.__viewer.reports = (window.__viewer.reports ?? 0) + 1;
}

async function load() {
  const data = await shown(() => api(`/api/sweeps/${encodeURIComponent(id)}`));
  if (!data) return;
  render(data);
  window.__viewer = { ready: true, cells: data.cells.length, loads: (window.__viewer?.loads ?? 0) + 1 };
}

$('pair').addEventListener('submit', async (e) => {
  e.preventDefault();
  const form = e.target;
  const c = await shown(() =>
    api(`/api/sweeps/${encodeURIComponent(id)}/pair`, { a: form.elements.a.value, b: form.elements.b.value }),
  );
  if (!c) return;
  const eff = c.efficiency;
  $('pair-result').replaceChildren(
    el(
      'table',
      { class: 'grid', id: 'pair-table' },
      el('tr', {}, el('th', {}, ''), el('th', {}, `${c.b} solved`), el('th', {}, `${c.b} not`)),
      el(
        'tr',
        {},
        el('th', {}, `${c.a} solved`),
        el('td', { class: 'n' }, c.bothSolved),
        el('td', { class: 'n' }, c.onlyA),
      ),
      el('tr', {}, el('th', {}, `${c.a} not`), el('td', { class: 'n' }, c.onlyB), el('td', { class: 'n' }, c.neither)),
    ),
    el(
      'p',
      { id: 'pair-summary' },
      `${c.pairs} pairs; McNemar exact p = `,
      el('b', { id: 'mcnemar-p' }, fmt.num(c.mcnemarP, 4)),
      eff.meanDiff === null
        ? '; no pair both solved, so no efficiency difference'
        : `; mean efficiency ${c.a} - ${c.b} = ${fmt.num(eff.meanDiff)} (95% bootstrap ${fmt.num(eff.low95)} to ` +
            `${fmt.num(eff.high95)}, ${eff.pairs} pairs both solved)`,
      c.copiedPairs ? `; ${c.copiedPairs} copies of deterministic pairs left out` : '',
    ),
    ...c.notes.map((n) => el('p', { class: 'note' }, n)),
  );
  window.__viewer.pair = c;
});

const reload = throttled(() => void load(), 1000);
// the statistics cost every run's summary: at most every 15 s
const reloadReport = throttled(() => void loadReport(), 15_000);
await load();
void loadReport();
live((changes) => {
  if (!changes.some((c) => c.sweep_id === id)) return;
  reload();
  reloadReport();
}, reload);
