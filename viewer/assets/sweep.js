// One sweep: progress and cost so far, the factor grid (a row per cell, runs by latest attempt and outcome) refreshed
// live when a run changes; then, as they cost more, the per-agent statistics, the errored runs and the report's plots
// (report.js, from the data in #data); a group's heatmap on a maze (heatmap.js) and a paired comparison, as picked.
// Rates and costs arrive as the report writes them (reports/stat-text.ts); the plots format with stat-format.js.
import { api, el, fmt, idLink, live, shortIds, shown, tableParts, throttled } from './common.js';
import * as StatFormat from './stat-format.js';
import { showHeatmap } from './heatmap.js';

const id = decodeURIComponent(location.pathname.split('/').pop());
const $ = (x) => document.getElementById(x);
let labels = [];
/** Each cell's interval and what it counts, by cell index, once the statistics are in. */
let cellIntervals = new Map();
let lastGrid = null;

// a mark per outcome class; an error or a wall-clock stop is not a failure of the agent
const MARKS = { success: 'ok', failure: 'no', error: 'failed', wall_clock: 'failed', running: 'running' };
const WORDS = {
  success: 'goal found',
  failure: 'failed',
  error: 'ended by an error',
  wall_clock: 'stopped by the wall clock',
  running: 'running',
};

/** A cell's repeats as one mark each: success, failure, error, running; linked to the run. */
function repeats(cell, planned) {
  const marks = cell.runs.map((r) =>
    el(
      'a',
      {
        class: `rep ${MARKS[r.outcome_class]}`,
        href: `/experiments/${encodeURIComponent(r.experiment_id)}`,
        title: `repeat ${r.repeat}: ${WORDS[r.outcome_class]} (${r.status})`,
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
  lastGrid = data;
  const t = data.sweep;
  $('title').textContent = `Sweep ${t.sweep_id}`;
  const finished = t.successes + t.failures + t.errors;
  $('summary').textContent =
    `${t.description ?? ''} ${t.cells} cells x ${t.repeats} repeats: ` +
    `${fmt.int(finished)} of ${fmt.int(t.runs)} runs done (${fmt.int(t.successes)} found the goal, ` +
    `${fmt.int(t.failures)} failed, ${fmt.int(t.errors)} ended by an error), ${fmt.int(t.running)} running, ` +
    `${fmt.int(t.runs - t.started)} not started; ${fmt.int(t.actions)} actions; cost so far ${t.cost_text}`;
  $('done-bar').style.width = `${t.runs ? (100 * finished) / t.runs : 0}%`;
  $('running-bar').style.width = `${t.runs ? (100 * t.running) / t.runs : 0}%`;
  const head = ['cell', 'agent', 'maze', 'settings', 'repeats', 'done', 'running', 'errors', 'success', '95% interval'];
  $('cells').replaceChildren(
    ...tableParts(
      [...head, 'counts', 'actions', 'cost'],
      data.cells.map((c) => {
        const iv = cellIntervals.get(c.cell_index);
        return el(
          'tr',
          { 'data-cell': c.cell_index },
          el('td', { class: 'n' }, c.cell_index),
          el('td', {}, c.label),
          el('td', {}, `${c.maze_generator} ${c.maze_size} seed ${c.maze_seed}`),
          // the settings the sweep varies that reach the cell's agent (the server's settings_text)
          el('td', { class: 'settings', title: c.settings_text || null }, c.settings_text || '-'),
          el('td', { class: 'reps' }, repeats(c, t.repeats)),
          el('td', { class: 'n done' }, `${c.successes + c.failures + c.errors} / ${t.repeats}`),
          el('td', { class: 'n' }, c.running),
          el('td', { class: 'n errors' }, c.errors),
          el('td', { class: 'n successes' }, `${c.successes} / ${c.successes + c.failures}`),
          el('td', { class: 'n interval' }, iv ? iv.interval : '...'),
          el('td', { class: 'counted' }, iv ? iv.counted : 'with the statistics'),
          el('td', { class: 'n' }, fmt.int(c.actions)),
          el('td', { class: 'n cost' }, c.cost_text),
        );
      }),
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

/** The agents ranked in tie groups per combination of the other settings (reports/compare-all.ts). */
function renderRanking(ranking) {
  if (!ranking) {
    $('ranking').replaceChildren(el('p', { class: 'note' }, 'one agent: nothing to rank'));
    return;
  }
  const pct = (x) => (x === null ? '-' : `${(x * 100).toFixed(1)}%`);
  const settings = (g) =>
    Object.entries(g.settings)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' ') || 'all runs';
  const rows = ranking.groups.flatMap((g) =>
    g.ranking.map((r) =>
      el(
        'tr',
        {},
        el('td', { class: 'settings' }, settings(g)),
        el('td', { class: 'n rank' }, r.rank),
        el('td', { class: 'agent' }, r.agent),
        el('td', { class: 'n' }, pct(r.successRate)),
        el('td', { class: 'n' }, `${pct(r.low95)} to ${pct(r.high95)}`),
        el('td', { class: 'n' }, r.mazes),
        el('td', { class: 'tie' }, r.tieGroup.join(', ')),
      ),
    ),
  );
  $('ranking').replaceChildren(
    el(
      'table',
      { class: 'grid', id: 'ranking-table' },
      ...tableParts(['settings', 'rank', 'agent', 'success', 'maze 95%', 'mazes', 'tie group'], rows),
    ),
  );
}

/** The per-agent statistics from the report's data (sweep-statistics.ts, in stat-text.ts's words). */
function renderStats(report) {
  // "N of M planned runs ended"; cut short, the cells it misses (reports/plan-text.ts), above the table
  const [sentence, ...missing] = report.planLines;
  $('plan').replaceChildren(
    el('p', { id: 'plan-sentence', class: missing.length > 0 ? 'incomplete' : 'complete' }, sentence),
    ...(missing.length > 0 ? [el('ul', { id: 'plan-missing' }, ...missing.map((l) => el('li', {}, l)))] : []),
    // a sweep with stop_when: what its rule decided and which guarantee holds (reports/sequential-stop.ts)
    ...report.sequentialLines.map((l) => el('p', { id: 'sequential', class: 'incomplete' }, l)),
  );
  const statsHead = [
    'agent',
    'settings',
    'maze',
    'size',
    'n',
    'identical repeats',
    'independent',
    'success (maze 95%)',
  ];
  $('stats').replaceChildren(
    ...tableParts(
      [
        ...statsHead,
        'maze bootstrap',
        'counts',
        'how runs ended',
        'errors',
        'if errors had failed',
        'SPL',
        'mean eff. of successes',
        'from text',
        'cost',
      ],
      report.stats.map((s, k) => {
        const t = report.statsText[k];
        return el(
          'tr',
          {},
          el('td', {}, s.label),
          el('td', { class: 'settings', title: t.settings }, t.settings),
          el('td', {}, s.maze_generator),
          el('td', { class: 'n' }, s.maze_size),
          el('td', { class: 'n' }, s.n),
          el('td', { class: 'identical' }, t.identical || 'none'),
          el('td', { class: 'n' }, s.independent),
          el('td', { class: 'n success' }, t.success),
          el('td', { class: 'n' }, t.successBootstrap),
          el('td', { class: 'counted' }, t.counted),
          el('td', { class: 'ended' }, t.stopReasons),
          el('td', { class: 'n', title: t.errorReasons }, s.errors),
          el('td', { class: 'n' }, t.ifErrorsFailed || '-'),
          el('td', { class: 'n spl' }, t.spl),
          el('td', { class: 'n' }, t.efficiency),
          el('td', { class: 'n' }, t.fromText),
          el('td', { class: 'n cost' }, t.cost),
        );
      }),
    ),
  );
  const errors = report.runs.filter((r) => r.outcome_class === 'error');
  $('errors').replaceChildren(
    errors.length === 0
      ? el('p', { id: 'no-errors' }, 'none')
      : el(
          'table',
          { class: 'grid', id: 'error-runs' },
          ...tableParts(
            ['run', 'agent', 'settings', 'maze', 'repeat', 'reason'],
            errors.map((r) =>
              el(
                'tr',
                {},
                el(
                  'td',
                  { class: 'id' },
                  idLink(`/experiments/${encodeURIComponent(r.experiment_id)}`, r.experiment_id),
                ),
                el('td', {}, r.label),
                el('td', { class: 'settings', title: settingsText(r.settings) }, settingsText(r.settings)),
                el('td', {}, `${r.maze_generator} ${r.maze_size} seed ${r.maze_seed}`),
                el('td', { class: 'n' }, r.repeat),
                el('td', { class: 'reason' }, r.failure_reason ?? 'no reason recorded'),
              ),
            ),
          ),
        ),
  );
  shortIds($('errors'));
  cellIntervals = new Map(report.cellStats.map((c) => [c.cell_index, c]));
  if (lastGrid) render(lastGrid);
}

const mazeName = (c) => `${c.maze_generator} ${c.maze_size} seed ${c.maze_seed}`;
const groupName = (c) => (c.settings_text ? `${c.label} ${c.settings_text}` : c.label);

/** The heatmap's maze and group choices from the grid, each kept as chosen while the grid refreshes. */
function heatmapChoices(cells) {
  const form = $('heatmap-pick');
  for (const [name, of] of [
    ['maze', mazeName],
    ['group', groupName],
  ]) {
    const values = [...new Set(cells.map(of))];
    const select = form.elements[name];
    if ([...select.options].map((o) => o.value).join('\n') === values.join('\n')) continue;
    const current = select.value;
    select.replaceChildren(...values.map((v) => el('option', { value: v, selected: v === current }, v)));
  }
}

/** The heatmap of the cell the chosen group has on the chosen maze (one cell: an agent and settings on a maze). */
async function heatmap() {
  const form = $('heatmap-pick');
  const cell = lastGrid?.cells.find(
    (c) => mazeName(c) === form.elements.maze.value && groupName(c) === form.elements.group.value,
  );
  if (cell) return showHeatmap(id, cell.cell_index);
  $('heatmap').hidden = true;
  $('heatmap-summary').textContent = 'this group has no cell on this maze';
  for (const t of ['heat-visits', 'heat-stuck']) $(t).replaceChildren();
}
$('heatmap-pick').addEventListener('change', () => void heatmap());

let plotted = false;
/** The report's data: the statistics table, and the first time, the report's plots (report.js reads #data). */
async function loadReport() {
  const report = await shown(() => api(`/api/sweeps/${encodeURIComponent(id)}/report`));
  if (!report) return;
  renderStats(report);
  renderRanking(report.ranking);
  if (!plotted) {
    plotted = true;
    $('data').textContent = JSON.stringify(report);
    // report.js is a classic script (the written report inlines it): it finds the formats as a global
    window.StatFormat = StatFormat;
    document.body.append(el('script', { src: '/assets/report.js' }));
  }
  window.__viewer.reports = (window.__viewer.reports ?? 0) + 1;
}

async function load() {
  const data = await shown(() => api(`/api/sweeps/${encodeURIComponent(id)}`));
  if (!data) return;
  render(data);
  heatmapChoices(data.cells);
  window.__viewer = {
    ...window.__viewer,
    ready: true,
    cells: data.cells.length,
    loads: (window.__viewer?.loads ?? 0) + 1,
  };
}

$('pair').addEventListener('submit', async (e) => {
  e.preventDefault();
  const form = e.target;
  const c = await shown(() =>
    api(`/api/sweeps/${encodeURIComponent(id)}/pair`, { a: form.elements.a.value, b: form.elements.b.value }),
  );
  if (!c) return;
  // one 2x2 table per combination of the other settings the sweep varies: never pooled across them
  const span = (lo, hi) => `${fmt.num(lo)} to ${fmt.num(hi)}`;
  $('pair-result').replaceChildren(
    ...c.groups.map((g) =>
      el(
        'div',
        { class: 'pair-group', 'data-settings': settingsText(g.settings) },
        el('h3', {}, settingsText(g.settings) || 'all runs (the sweep varies no other setting)'),
        el(
          'table',
          { class: 'grid pair-table' },
          el('tr', {}, el('th', {}, ''), el('th', {}, `${c.b} solved`), el('th', {}, `${c.b} not`)),
          el(
            'tr',
            {},
            el('th', {}, `${c.a} solved`),
            el('td', { class: 'n' }, g.bothSolved),
            el('td', { class: 'n' }, g.onlyA),
          ),
          el(
            'tr',
            {},
            el('th', {}, `${c.a} not`),
            el('td', { class: 'n' }, g.onlyB),
            el('td', { class: 'n' }, g.neither),
          ),
        ),
        el(
          'p',
          { class: 'pair-summary' },
          `${g.pairs} pairs on ${g.mazes} mazes; sign-flip p over ${g.test.mazes} mazes = `,
          el('b', { class: 'maze-p' }, fmt.num(g.test.p, 4)),
          c.groups.length > 1 ? ` (Holm ${fmt.num(g.test.holmP, 4)})` : '',
          ` (at least ${fmt.num(g.test.minP, 4)} with ${g.test.differing} mazes that differ)`,
          g.successDiff.diff === null
            ? ''
            : `; success ${c.a} - ${c.b} = ${fmt.num(g.successDiff.diff)} (maze-level 95% ` +
                `${g.successDiff.low95 === null ? 'too few mazes' : span(g.successDiff.low95, g.successDiff.high95)})`,
          g.spl.meanDiff === null
            ? ''
            : `; SPL ${c.a} - ${c.b} = ${fmt.num(g.spl.meanDiff)} (maze-level 95% ` +
                `${g.spl.low95 === null ? 'too few mazes' : span(g.spl.low95, g.spl.high95)})`,
          g.efficiency.meanDiff === null
            ? '; no pair both solved, so no efficiency difference'
            : `; mean efficiency of successes ${c.a} - ${c.b} = ${fmt.num(g.efficiency.meanDiff)} (maze-level 95% ` +
                `${g.efficiency.low95 === null ? 'too few mazes' : span(g.efficiency.low95, g.efficiency.high95)}, ` +
                `${g.efficiency.pairs} pairs both solved on ${g.efficiency.mazes} mazes)`,
          g.copiedPairs ? `; ${g.copiedPairs} copies of deterministic pairs left out` : '',
        ),
      ),
    ),
    ...c.notes.map((n) => el('p', { class: 'note' }, n)),
  );
  window.__viewer.pair = c;
});

const reload = throttled(() => void load(), 1000);
// the statistics cost every run's summary, the heatmap every move of a cell's runs: each at most every 15 s
const reloadReport = throttled(() => void loadReport(), 15_000);
const reloadHeatmap = throttled(() => void heatmap(), 15_000);
await load();
void heatmap();
void loadReport();
live((changes) => {
  if (!changes.some((c) => c.sweep_id === id)) return;
  reload();
  reloadReport();
  reloadHeatmap();
}, reload);
