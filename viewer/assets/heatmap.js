// The sweep page's heatmap: a group's runs on one maze (one cell of the sweep), each maze cell coloured by how often a
// move entered it, summed over the runs (reports/behaviour-heatmap.ts), light yellow to dark red on a log scale; a
// ring on each cell where a failed run's progress stopped, the start outlined. The maze is drawn by maze-canvas.js.
import { api, el, fmt, idLink, shown, tableParts } from './common.js';
import { MazeCanvas } from './maze-canvas.js';

const $ = (x) => document.getElementById(x);
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
const LOW = [255, 237, 160];
const HIGH = [189, 0, 38];

/** The colour of a cell entered `n` times when the most entered was `max`: log(1 + n) / log(1 + max) of the way. */
function heatColour(n, max) {
  const t = Math.log1p(n) / Math.log1p(Math.max(1, max));
  const c = LOW.map((low, k) => Math.round(low + (HIGH[k] - low) * t));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

/** The maze with the visits over it, the stuck rings and the start's outline. */
function draw(canvas, data) {
  const board = new MazeCanvas(canvas, data.maze, 560);
  board.draw();
  const { ctx, scale } = board;
  const max = data.visits[0]?.[2] ?? 0;
  for (const [x, y, n] of data.visits) {
    ctx.fillStyle = heatColour(n, max);
    ctx.fillRect(x * scale, y * scale, scale, scale);
  }
  ctx.lineWidth = Math.max(1, Math.floor(scale / 8));
  ctx.strokeStyle = '#111827';
  for (const [x, y] of data.stuck) ctx.strokeRect(x * scale + 1, y * scale + 1, scale - 2, scale - 2);
  ctx.strokeStyle = 'rgb(124, 58, 237)';
  ctx.strokeRect(data.maze.start[0] * scale + 1, data.maze.start[1] * scale + 1, scale - 2, scale - 2);
  return board;
}

/** The cell under the mouse, in words, as the canvas's title. */
function hover(canvas, board, data) {
  const visits = new Map(data.visits.map(([x, y, n]) => [`${x},${y}`, n]));
  const stuck = new Map(data.stuck.map(([x, y, n]) => [`${x},${y}`, n]));
  canvas.onmousemove = (e) => {
    const r = canvas.getBoundingClientRect();
    const x = Math.floor(((e.clientX - r.left) * (canvas.width / r.width)) / board.scale);
    const y = Math.floor(((e.clientY - r.top) * (canvas.height / r.height)) / board.scale);
    const key = `${x},${y}`;
    canvas.title =
      `(${x},${y}): entered ${visits.get(key) ?? 0} times` +
      (stuck.has(key) ? `; ${stuck.get(key)} run(s) stalled here` : '');
  };
}

/** The most entered cells and the cells where progress stopped, as tables. */
function tables(data) {
  const runs = data.runs.length;
  $('heat-visits').replaceChildren(
    ...tableParts(
      ['cell', 'entries', 'per run'],
      data.visits
        .slice(0, 10)
        .map(([x, y, n]) =>
          el(
            'tr',
            { 'data-cell': `${x},${y}` },
            el('td', {}, `(${x},${y})`),
            el('td', { class: 'n' }, n),
            el('td', { class: 'n' }, fmt.num(n / runs, 1)),
          ),
        ),
    ),
  );
  $('heat-stuck').replaceChildren(
    ...tableParts(
      ['progress stopped in', 'runs'],
      data.stuck.map(([x, y, n]) =>
        el('tr', { 'data-cell': `${x},${y}` }, el('td', {}, `(${x},${y})`), el('td', { class: 'n' }, n)),
      ),
    ),
  );
}

/** The colour scale: the colours of 1 entry, of the geometric middle and of the most entries. */
function legend(max) {
  const marks = [...new Set([1, Math.round(Math.sqrt(max)), max])].filter((n) => n >= 1);
  return el(
    'span',
    { class: 'heat-legend' },
    'colours: ',
    marks.flatMap((n) => [el('span', { class: 'swatch', style: { background: heatColour(n, max) } }), ` ${n} `]),
    'entries',
  );
}

/** The runs counted, in one line, each linked. */
function summary(data) {
  const found = data.runs.filter((r) => r.goalFound).length;
  const moves = data.runs.reduce((s, r) => s + r.moves, 0);
  const links = data.runs.flatMap((r, k) => [
    k > 0 ? ', ' : '',
    ...idLink(`/experiments/${encodeURIComponent(r.experimentId)}`, r.experimentId),
  ]);
  $('heatmap-summary').replaceChildren(
    `${plural(data.runs.length, 'run')} (${found} found the goal, ${data.runs.length - found} did not), ` +
      `${fmt.int(moves)} moves; ` +
      `${plural(data.visits.length, 'cell')} entered, the most ${plural(data.visits[0]?.[2] ?? 0, 'time')}; ` +
      `progress stopped in ${plural(data.stuck.length, 'cell')}: `,
    ...links,
    el('br'),
    legend(data.visits[0]?.[2] ?? 0),
  );
}

/** The heatmap of one cell of sweep `sweep`, fetched and drawn; the page's test reads it from window.__viewer. */
export async function showHeatmap(sweep, cell) {
  const data = await shown(() => api(`/api/sweeps/${encodeURIComponent(sweep)}/heatmap`, { cell }));
  if (!data) return;
  const canvas = $('heatmap');
  canvas.hidden = data.maze === null;
  if (data.maze === null) {
    $('heatmap-summary').textContent = 'no run of this group on this maze has finished yet';
    $('heat-visits').replaceChildren();
    $('heat-stuck').replaceChildren();
  } else {
    const board = draw(canvas, data);
    hover(canvas, board, data);
    summary(data);
    tables(data);
    window.__viewer.heatmapScale = board.scale;
  }
  window.__viewer.heatmap = data;
}
