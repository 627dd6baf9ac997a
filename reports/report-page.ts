// The sweep report as one HTML file: tables from the statistics views and
// charts drawn by Chart.js, inlined (no network needed to open it). Runs
// that did not succeed link to their replays, written beside the report.
// Deterministic repeats count once in intervals, pass^k and pairs (migration
// 007); notes beside the numbers say which agents that applies to.
import { asset, escapeHtml, packageDistFile, scriptJson } from './html.ts';
import type { ReportData } from './report-data.ts';
import { labelRuns, repeatsNote } from './repeats.ts';

const cell = (v: unknown, digits?: number) => {
  if (v === null || v === undefined) return '<td class="na">-</td>';
  if (typeof v === 'number') {
    const text = digits === undefined ? v : v.toFixed(digits);
    return `<td class="n">${escapeHtml(text)}</td>`;
  }
  return `<td>${escapeHtml(v)}</td>`;
};

function table(rows: Array<Record<string, unknown>>, columns: Array<[string, string, number?]>, id: string): string {
  if (rows.length === 0) return `<p class="na" id="${id}">no rows</p>`;
  const head = columns.map(([, h]) => `<th>${escapeHtml(h)}</th>`).join('');
  return `<table id="${id}"><thead><tr>${head}</tr></thead><tbody>
${rows.map((r) => `<tr>${columns.map(([k, , d]) => cell(r[k], d)).join('')}</tr>`).join('\n')}
</tbody></table>`;
}

/** pass^k with k across: one row per agent and maze. */
function passKTable(rows: Array<Record<string, unknown>>): string {
  const maxK = Math.max(0, ...rows.map((r) => Number(r.k)));
  const groups = new Map<string, Record<string, unknown>>();
  for (const r of rows) {
    const key = [r.label, r.maze_generator, r.maze_size].map(String).join('|');
    const g = groups.get(key) ?? {
      label: r.label,
      maze_generator: r.maze_generator,
      maze_size: r.maze_size,
      cells: r.cells,
    };
    g[`k${String(r.k)}`] = r.pass_k;
    groups.set(key, g);
  }
  const ks = Array.from({ length: maxK }, (_, i) => [`k${i + 1}`, `pass^${i + 1}`] as [string, string]);
  return table(
    [...groups.values()],
    [['label', 'agent'], ['maze_generator', 'maze'], ['maze_size', 'size'], ['cells', 'cells'], ...ks],
    'pass-k',
  );
}

/** Notes as a list, or nothing when there are none. */
const notes = (lines: string[], id: string) =>
  lines.length === 0
    ? ''
    : `<ul class="note" id="${id}">${lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>`;

/** Labels whose pass^k comes, in some cells, from one deterministic observation: flat in k by construction. */
function passKNotes(rows: Array<Record<string, unknown>>): string[] {
  const labels = [...new Set(rows.filter((r) => Number(r.deterministic_cells) > 0).map((r) => String(r.label)))];
  return labels.map(
    (label) =>
      `${label}: each cell is one deterministic observation, so its pass^k is that run's outcome ` +
      '(1 or 0) for every k, not a measured consistency',
  );
}

const FAILURE_HEADINGS = ['agent', 'maze', 'size', 'seed', 'repeat', 'status', 'stop', 'actions', 'replay'];

export function reportHtml(d: ReportData, replayHref: (experimentId: string) => string | null): string {
  const failures = d.runs.filter((r) => !r.goal_found);
  const intro =
    `${escapeHtml(d.sweep.description ?? '')} ${d.sweep.cells} cells x ${d.sweep.repeats} repeats; ` +
    `${d.runs.length} runs recorded; created ${escapeHtml(d.sweep.created_at)}.\n` +
    "Success is the experiment's own success rule; success rates and their intervals (Wilson 95%) are over " +
    'independent runs: repeats of a deterministic agent with the same maze, seed and settings count once; ' +
    'efficiency is optimal moves / actions, over successes.';
  const repeats = labelRuns(d.stats).flatMap((r) => repeatsNote(r, d.sweep.repeats) ?? []);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sweep ${escapeHtml(d.sweep.id)}</title>
<style>${asset('report.css')}</style></head>
<body>
<h1>Sweep ${escapeHtml(d.sweep.id)}</h1>
<p>${intro}</p>
${notes(repeats, 'repeats')}
<h2>Success rate by maze size</h2>
<div id="success-charts" class="charts"></div>
<h2>Efficiency of successful runs</h2>
<div id="efficiency-charts" class="charts"></div>
<h2>Tokens per success</h2>
<div class="charts"><div class="chart"><canvas id="tokens-chart"></canvas></div></div>
<h2>Per agent and maze</h2>
<p class="note">n and successes count every run; success and its interval count each independent run once.</p>
${table(
  d.stats,
  [
    ['label', 'agent'],
    ['maze_generator', 'maze'],
    ['maze_size', 'size'],
    ['n', 'n'],
    ['n_independent', 'independent'],
    ['successes', 'successes'],
    ['success_rate', 'success'],
    ['success_low95', 'low 95%'],
    ['success_high95', 'high 95%'],
    ['mean_efficiency', 'mean eff.'],
    ['median_efficiency', 'median eff.'],
    ['median_actions_to_success', 'median actions (success)'],
    ['invalid_action_rate', 'invalid rate'],
    ['loop_rate', 'loop rate'],
    ['tokens_per_experiment', 'tokens/run'],
    ['tokens_per_success', 'tokens/success'],
    ['cost_per_experiment', 'cost/run $'],
    ['cost_per_success', 'cost/success $'],
    ['unfinished', 'unfinished'],
  ],
  'stats',
)}
<h2>pass^k over repeats</h2>
${notes(passKNotes(d.passK), 'pass-k-notes')}
${passKTable(d.passK)}
<h2>Paired comparisons (same mazes, settings and repeats)</h2>
${table(
  d.pairs,
  [
    ['label_a', 'a'],
    ['label_b', 'b'],
    ['pairs', 'pairs'],
    ['both_solved', 'both'],
    ['only_a', 'only a'],
    ['only_b', 'only b'],
    ['neither', 'neither'],
    ['mcnemar_p', 'McNemar exact p', 4],
    ['mean_efficiency_diff', 'mean eff. a - b'],
    ['copied_pairs', 'copies left out'],
  ],
  'pairs',
)}
<h2>Runs that did not succeed (${failures.length})</h2>
${
  failures.length === 0
    ? '<p>none</p>'
    : `<table id="failures"><thead><tr>${FAILURE_HEADINGS.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>
${failures
  .map((r) => {
    const href = replayHref(r.experiment_id);
    const replay = href
      ? `<a href="${escapeHtml(href)}">${escapeHtml(r.experiment_id)}</a>`
      : escapeHtml(r.experiment_id);
    const cells = [
      `<td>${escapeHtml(r.label)}</td>`,
      `<td>${escapeHtml(r.maze_generator)}</td>`,
      `<td class="n">${r.maze_size}</td>`,
      `<td class="n">${r.maze_seed}</td>`,
      `<td class="n">${r.repeat}</td>`,
      `<td>${escapeHtml(r.status)}</td>`,
      `<td>${escapeHtml(r.stop_reason ?? '')}</td>`,
      `<td class="n">${r.actions}</td>`,
      `<td>${replay}</td>`,
    ];
    return `<tr>${cells.join('')}</tr>`;
  })
  .join('\n')}
</tbody></table>`
}
<script id="data" type="application/json">${scriptJson(d)}</script>
<script>${packageDistFile('chart.js', 'chart.umd.min.js')}</script>
<script>${asset('report.js')}</script>
</body></html>
`;
}
