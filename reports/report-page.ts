// The sweep report as one HTML file, Chart.js inlined so it opens with no network. Every table and chart is split by
// each setting the sweep varies that reaches the agent (migration 011), never pooled; runs ended by an error are
// listed apart and left out of every denominator (with an if-they-had-failed row); deterministic copies count once
// and model repeats that walked the same path are flagged. Failures link to their replays, written beside the report;
// numbers are written by stat-format.ts, as the viewer writes them.
import { MIN_BOOTSTRAP_MAZES } from './maze-inference.ts';
import { asset, escapeHtml, packageDistFile, scriptJson } from './html.ts';
import type { ReportData } from './report-data.ts';
import { labelRuns, repeatsNote } from './repeats.ts';
import { statFormatClassic } from './stat-format-script.ts';
import { costText } from './cost-text.ts';
import { pairIdenticalText, settingsText, statsRowText } from './stat-text.ts';
import type { Comparison } from './compare.ts';
import { formatNumber, formatRate } from './stat-format.ts';
import { latexTable, markdownTable, provenanceNotes, type PaperTable } from './paper-table.ts';
import { behaviourSection } from './behaviour-page.ts';

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

/** The ranking of compare --all, one table per group of the other settings. */
function rankingTables(ranking: ReportData['ranking']): string {
  if (!ranking) return '<p class="na" id="ranking">one agent: nothing to rank</p>';
  const rows = ranking.groups.flatMap((g) =>
    g.ranking.map((r) => ({
      settings: settingsText(g.settings),
      rank: r.rank,
      agent: r.agent,
      success: formatRate(r.successRate),
      interval: `${formatRate(r.low95)} to ${formatRate(r.high95)}`,
      mazes: r.mazes,
      tie: r.tieGroup.join(', '),
    })),
  );
  const columns: Array<[string, string]> = [
    ['settings', 'settings'],
    ['rank', 'rank'],
    ['agent', 'agent'],
    ['success', 'success'],
    ['interval', 'maze 95%'],
    ['mazes', 'mazes'],
    ['tie', 'tie group'],
  ];
  return table(rows, columns, 'ranking');
}

/** pass^k with k across: one row per agent, settings and maze. */
function passKTable(rows: ReportData['passK']): string {
  const maxK = Math.max(0, ...rows.map((r) => Number(r.k)));
  const groups = new Map<string, Record<string, unknown>>();
  for (const r of rows) {
    const key = [r.label, settingsText(r.settings), r.maze_generator, r.maze_size].map(String).join('|');
    const g = groups.get(key) ?? {
      label: r.label,
      settings: settingsText(r.settings),
      maze_generator: r.maze_generator,
      maze_size: r.maze_size,
      cells: r.cells,
    };
    g[`k${String(r.k)}`] = Math.round(r.passK * 1e4) / 1e4;
    groups.set(key, g);
  }
  const ks = Array.from({ length: maxK }, (_, i) => [`k${i + 1}`, `pass^${i + 1}`] as [string, string]);
  return table(
    [...groups.values()],
    [
      ['label', 'agent'],
      ['settings', 'settings'],
      ['maze_generator', 'maze'],
      ['maze_size', 'size'],
      ['cells', 'cells'],
      ...ks,
    ],
    'pass-k',
  );
}

/** Notes as a list, or nothing when there are none. */
const notes = (lines: string[], id: string) =>
  lines.length === 0
    ? ''
    : `<ul class="note" id="${id}">${lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>`;

/** Labels whose pass^k comes, in some cells, from one deterministic observation: flat in k by construction. */
function passKNotes(rows: ReportData['passK']): string[] {
  const labels = [...new Set(rows.filter((r) => r.deterministicCells > 0).map((r) => r.label))];
  return labels.map(
    (label) =>
      `${label}: each cell is one deterministic observation, so its pass^k is that run's outcome ` +
      '(1 or 0) for every k, not a measured consistency',
  );
}

type Run = ReportData['runs'][number];
const stopText = (r: Run) => `${r.status}${r.stop_reason ? `: ${r.stop_reason}` : ''}`;

/** Runs as a table with a replay link each: the failures, and apart from them the runs ended by an error. */
function runsTable(runs: Run[], id: string, last: [string, (r: Run) => string], href: (id: string) => string | null) {
  if (runs.length === 0) return `<p id="${id}">none</p>`;
  const headings = ['agent', 'settings', 'maze', 'size', 'seed', 'repeat', last[0], 'actions', 'replay'];
  const rows = runs.map((r) => {
    const h = href(r.experiment_id);
    const replay = h ? `<a href="${escapeHtml(h)}">${escapeHtml(r.experiment_id)}</a>` : escapeHtml(r.experiment_id);
    return `<tr>${[
      `<td>${escapeHtml(r.label)}</td>`,
      `<td>${escapeHtml(settingsText(r.settings))}</td>`,
      `<td>${escapeHtml(r.maze_generator)}</td>`,
      `<td class="n">${r.maze_size}</td>`,
      `<td class="n">${r.maze_seed}</td>`,
      `<td class="n">${r.repeat}</td>`,
      `<td>${escapeHtml(last[1](r))}</td>`,
      `<td class="n">${r.actions}</td>`,
      `<td>${replay}</td>`,
    ].join('')}</tr>`;
  });
  return `<table id="${id}"><thead><tr>${headings.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>
${rows.join('\n')}
</tbody></table>`;
}

/**
 * Paired comparisons (compare.ts), one row per table of each: per combination of the other settings. `settingPairs`:
 * one agent, two values of a setting (agent and setting columns); otherwise two agents.
 */
function comparisonsTable(comparisons: Comparison[], id: string, settingPairs: boolean): string {
  const diff = (x: { diff?: number | null; meanDiff?: number | null; low95: number | null; high95: number | null }) => {
    const v = x.diff ?? x.meanDiff ?? null;
    return v === null ? '-' : `${formatNumber(v, 3)} (${formatNumber(x.low95, 3)} to ${formatNumber(x.high95, 3)})`;
  };
  const rows = comparisons.flatMap((c) =>
    c.groups.map((g) => ({
      agent: c.agent ?? '',
      factor: c.factor ?? '',
      a: c.a,
      b: c.b,
      settings: settingsText(g.settings),
      pairs: g.pairs,
      mazes: g.mazes,
      holm: formatNumber(g.test.holmP, 4),
      both: g.bothSolved,
      only_a: g.onlyA,
      only_b: g.onlyB,
      neither: g.neither,
      p: formatNumber(g.test.p, 4),
      spl: diff(g.spl),
      success: diff(g.successDiff),
      efficiency: diff(g.efficiency),
      copies: g.copiedPairs,
      identical: pairIdenticalText(c, g) || 'none',
    })),
  );
  const head: Array<[string, string]> = settingPairs
    ? [
        ['agent', 'agent'],
        ['factor', 'setting'],
        ['a', 'a'],
        ['b', 'b'],
        ['settings', 'other settings'],
      ]
    : [
        ['a', 'a'],
        ['b', 'b'],
        ['settings', 'settings'],
      ];
  return table(
    rows,
    [
      ...head,
      ['pairs', 'pairs'],
      ['mazes', 'mazes'],
      ['both', 'both'],
      ['only_a', 'only a'],
      ['only_b', 'only b'],
      ['neither', 'neither'],
      ['p', 'sign-flip p (over mazes)'],
      ['holm', 'Holm-adjusted p'],
      ['success', 'success a - b (maze 95%)'],
      ['spl', 'SPL a - b (maze 95%)'],
      ['efficiency', 'mean eff. of successes a - b (maze 95%)'],
      ['copies', 'copies left out'],
      ['identical', 'identical repeats'],
    ],
    id,
  );
}

/** The statistics table: per agent, settings and maze, each number written as stat-text.ts writes it. */
function statsTable(stats: ReportData['stats']): string {
  const rows = stats.map((r) => {
    const t = statsRowText(r);
    return {
      label: r.label,
      settings: t.settings,
      maze_generator: r.maze_generator,
      maze_size: r.maze_size,
      n: r.n,
      identical: t.identical || 'none',
      independent: r.independent,
      successes: r.independentSuccesses,
      success: t.success,
      bootstrap: t.successBootstrap,
      counted: t.counted,
      ended: t.stopReasons,
      errors: r.errors,
      reasons: t.errorReasons,
      if_failed: t.ifErrorsFailed || '-',
      spl: t.spl,
      efficiency: t.efficiency,
      mean_actions: r.meanActions === null ? null : Math.round(r.meanActions * 10) / 10,
      tokens: r.tokensPerExperiment === null ? null : Math.round(r.tokensPerExperiment),
      from_text: t.fromText,
      cost: t.cost,
    };
  });
  return table(
    rows,
    [
      ['label', 'agent'],
      ['settings', 'settings'],
      ['maze_generator', 'maze'],
      ['maze_size', 'size'],
      ['n', 'n (successes + failures)'],
      ['identical', 'identical repeats'],
      ['independent', 'independent'],
      ['successes', 'successes (independent)'],
      ['success', 'success (maze 95%, mazes)'],
      ['bootstrap', 'maze bootstrap 95%'],
      ['counted', 'counts'],
      ['ended', 'how runs ended'],
      ['errors', 'errors'],
      ['reasons', 'error reasons'],
      ['if_failed', 'success if errors and wall-clock stops had failed'],
      ['spl', 'SPL (maze 95%)'],
      ['efficiency', 'mean eff. of successes (maze 95%)'],
      ['mean_actions', 'mean actions'],
      ['tokens', 'tokens/run'],
      ['from_text', 'tool calls from text'],
      ['cost', 'cost (every attempt)'],
    ],
    'stats',
  );
}

/** The statistics table again, for a paper: as `ariadne stats --format markdown|latex` prints it. */
function paperSection(sweepId: string, factors: string[], paper: PaperTable): string {
  return `<h2>The table above for a paper</h2>
<p class="note">The same groups and numbers, with a caption and notes that say what each count and interval
includes and excludes, ready to paste (as <code>ariadne stats ${escapeHtml(sweepId)} --by
${escapeHtml(factors.join(','))} --format markdown</code> or <code>--format latex</code> prints them).</p>
<details id="paper-markdown"><summary>Markdown</summary><pre>${escapeHtml(markdownTable(paper))}</pre></details>
<details id="paper-latex"><summary>LaTeX (booktabs)</summary>
<pre>${escapeHtml(latexTable(paper, `tab:${sweepId}`))}</pre></details>`;
}

/** The paired comparisons of agents, the agents ranked in tie groups, and the paired settings. */
function comparisonSections(d: ReportData): string {
  return `<h2>Paired comparisons (same mazes, settings and repeats)</h2>
<p class="note">Two agents on the same maze, settings and repeat; a pair with an error or a running side is left
out. Differences are a minus b with maze-level 95% intervals; p is the exact sign-flip test over mazes, Holm's
adjustment beside it over every comparison of this report; a deterministic agent's copies pair once.</p>
${comparisonsTable(d.pairs, 'pairs', false)}
<h2>Agents ranked (tie groups)</h2>
<p class="note">Every pair of agents within each combination of the other settings, Holm's adjustment over that
group's pairs; rank = 1 + the agents significantly better (Holm p at most 0.05): a tie group is what the data cannot
separate at that level, not a proof that its agents are alike.</p>
${rankingTables(d.ranking)}
<h2>Paired settings (one agent, two values of a setting, same maze and repeat)</h2>
<p class="note">Per combination of the other settings; errors, wall-clock stops and running runs pair with nothing.
Differences are a minus b with maze-level 95% intervals; p as above.</p>
${comparisonsTable(d.settingPairs, 'setting-pairs', true)}`;
}

export function reportHtml(d: ReportData, replayHref: (experimentId: string) => string | null): string {
  // what report.js reads: the paper table is printed in the page, not read by its script
  const pageData = { ...d, paper: undefined };
  const failures = d.runs.filter((r) => r.outcome_class === 'failure');
  const errors = d.runs.filter((r) => r.outcome_class === 'error');
  const wallClock = d.runs.filter((r) => r.outcome_class === 'wall_clock');
  const succeeded = d.runs.filter((r) => r.outcome_class === 'success').length;
  const running = d.runs.filter((r) => r.outcome_class === 'running').length;
  const intro =
    `${escapeHtml(d.sweep.description ?? '')} ${d.sweep.cells} cells x ${d.sweep.repeats} repeats; ` +
    `${d.runs.length} runs recorded (${succeeded} succeeded, ${failures.length} failed, ${errors.length} ended by ` +
    `an error, ${wallClock.length} stopped by the wall clock, ${running} running); ` +
    `cost ${escapeHtml(costText(d.cost))}; created ${escapeHtml(d.sweep.created_at)}.\n` +
    "Success is the experiment's own success rule. Success rates are over independent runs: runs of a " +
    'deterministic agent that walked the same path on the same maze (same seed, settings that reach it) count ' +
    'once. The maze is the unit of replication: every interval is taken over mazes (the number of mazes stands ' +
    'beside it) and says "too few mazes" where one maze cannot give one. Runs ended by an error (provider, ' +
    'context, database) or stopped by the wall clock (max_duration_minutes: the serving stack decided them) are ' +
    'in no denominator; the column "success if errors and wall-clock stops had failed" counts each as a failure. ' +
    'Running runs count nowhere. Each table and chart is split by every setting the sweep varies that reaches ' +
    'the agent. SPL weighs each success by its path length and scores a failure 0; efficiency is optimal moves / ' +
    'actions over successes only.';
  const repeats = labelRuns(d.stats.map((s) => ({ label: s.label, n: s.n, n_independent: s.independent }))).flatMap(
    (r) => repeatsNote(r, d.sweep.repeats) ?? [],
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sweep ${escapeHtml(d.sweep.id)}</title>
<style>${asset('report.css')}</style></head>
<body>
<h1>Sweep ${escapeHtml(d.sweep.id)}</h1>
<p id="intro">${intro}</p>
${notes(d.planLines, 'plan') + notes(d.sequentialLines, 'sequential')}
${notes(provenanceNotes({ groups: d.stats }), 'provenance')}
${notes(repeats, 'repeats')}
<h2>Success rate by maze size</h2>
<div id="success-charts" class="charts"></div>
<h2>Efficiency of successful runs</h2>
<div id="efficiency-charts" class="charts"></div>
<h2>Tokens per success</h2>
<div class="charts"><div class="chart"><canvas id="tokens-chart"></canvas></div></div>
<h2>Per agent, settings and maze</h2>
<p class="note">n and "identical repeats" count every success and failure (copies included); success, its
intervals, SPL, efficiency, actions and tokens count each independent run once; errors, wall-clock stops and running
runs are left out of all of them. Intervals are Korn and Graubard's for a rate and cluster-robust t for a mean, over
mazes; the bootstrap resamples whole mazes (${d.resamples} resamples, seed ${d.seed}), not drawn below
${MIN_BOOTSTRAP_MAZES} mazes: runs on one maze are not independent draws. "Tool calls from text": the share of a
model's tool calls recovered from its reply text. Tokens are input, cache reads and writes, and output. Cost is every
attempt's (a sweep run again retries its failed runs), errors and calls of failed turns included: unknown when any
run's model has no price.</p>
${statsTable(d.stats)}
${behaviourSection(d.stats)}
${d.paper ? paperSection(d.sweep.id, d.factors, d.paper) : ''}
<h2>pass^k over repeats</h2>
${notes(passKNotes(d.passK), 'pass-k-notes')}
${passKTable(d.passK)}
${comparisonSections(d)}
<h2>Runs that failed (${failures.length})</h2>
${runsTable(failures, 'failures', ['stop', stopText], replayHref)}
<h2>Runs ended by an error (${errors.length})</h2>
<p class="note">Not failures of the agent: left out of every rate above.</p>
${runsTable(errors, 'errors', ['reason', (r) => r.failure_reason ?? 'no reason recorded'], replayHref)}
<h2>Runs stopped by the wall clock (${wallClock.length})</h2>
<p class="note">max_duration_minutes ran out: how far a run got in its minutes depends on the serving stack, so these
are not failures of the agent either, and are left out of every rate above.</p>
${runsTable(wallClock, 'wall-clock', ['stop', stopText], replayHref)}
<script id="data" type="application/json">${scriptJson(pageData)}</script>
<script>${packageDistFile('chart.js', 'chart.umd.min.js')}</script>
<script>${statFormatClassic()}</script>
<script>${asset('report.js')}</script>
</body></html>
`;
}
