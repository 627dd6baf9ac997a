// The replay as one HTML file: the packed run, the viewer script and its
// styles inline. Opens from disk in any browser, no network needed.
import { asset, classicScript, escapeHtml, scriptJson } from './html.ts';
import type { ReplayData } from './replay-data.ts';

const CONTROLS = [
  '<button id="back" title="step back (Left)">&#9664;</button>',
  '<button id="play" title="play / pause (Space)">Play</button>',
  '<button id="forward" title="step forward (Right)">&#9654;</button>',
].join('');

const SPEED =
  '<label>speed <select id="speed">' +
  [2, 10, 50, 250, 1000].map((v) => `<option value="${v}"${v === 10 ? ' selected' : ''}>${v}/s</option>`).join('') +
  '</select></label>';

const LEGEND = [
  '<span class="k known"></span>seen',
  '<span class="k unknown"></span>not yet seen',
  '<span class="k cone"></span>in view now',
  '<span class="k agent"></span>agent',
  '<span class="k start"></span>start',
  '<span class="k goal"></span>goal',
].join(' ');

export function replayHtml(d: ReplayData): string {
  const e = d.experiment;
  const title = `Replay ${String(e.experiment_id)}`;
  const headline =
    `${escapeHtml(e.agent)}${e.model ? ` (${escapeHtml(e.model)})` : ''} on ${escapeHtml(e.maze_generator)} ` +
    `${escapeHtml(e.maze_width)}x${escapeHtml(e.maze_height)} seed ${escapeHtml(e.maze_seed)}:\n` +
    `<b>${escapeHtml(e.status)}</b>${e.stop_reason ? ` (${escapeHtml(e.stop_reason)})` : ''}, ` +
    `${escapeHtml(e.actions)} actions, optimal ${escapeHtml(e.optimal_moves)}` +
    (e.efficiency !== null ? `, efficiency ${escapeHtml(e.efficiency)}` : '');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${asset('replay.css')}${asset('maze-legend.css')}</style></head>
<body>
<header><h1>${escapeHtml(title)}</h1>
<p>${headline}</p></header>
<main>
<section class="board"><canvas id="maze" aria-label="the maze at the current step"></canvas>
<div class="controls">
${CONTROLS}
<input id="scrub" type="range" min="0" value="0" step="1" aria-label="step">
${SPEED}
</div>
<p class="legend">${LEGEND}</p>
</section>
<aside><dl>
<dt>step</dt><dd id="step"></dd><dt>position</dt><dd id="position"></dd><dt>turn</dt><dd id="turn"></dd>
<dt>action</dt><dd id="action"></dd><dt>phase</dt><dd id="phase"></dd><dt>tokens (turn)</dt><dd id="tokens"></dd>
<dt>stuck signals</dt><dd id="signals" class="pre"></dd><dt>the model's words</dt><dd id="words" class="pre"></dd>
</dl></aside>
</main>
<script id="data" type="application/json">${scriptJson(d)}</script>
<script>${classicScript('maze-canvas.js')}</script>
<script>${asset('replay.js')}</script>
</body></html>
`;
}
