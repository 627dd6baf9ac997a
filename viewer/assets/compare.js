// Runs of one maze side by side: the maze drawn fully known, every run's path overlaid in its own colour up to
// the step on the shared scrubber (a shorter run stops at its end), and their numbers in one table.
import { api, el, fmt, idLink, shortIds, shown, typed, urlState } from './common.js';
import { MazeCanvas, PATH_COLOURS } from './maze-canvas.js';

const ids = urlState().ids;
const $ = (x) => document.getElementById(x);

const ROWS = [
  ['agent / model', (r) => r.label ?? r.model ?? r.agent],
  [
    'settings',
    (r) =>
      Object.entries(r.settings ?? {})
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(' ') || '-',
  ],
  ['status', (r) => r.status],
  ['goal', (r) => (r.goal_found ? 'found' : (r.stop_reason ?? '-'))],
  ['actions', (r) => fmt.int(r.actions)],
  ['optimal', (r) => fmt.int(r.optimal_moves)],
  ['efficiency', (r) => fmt.num(r.efficiency)],
  ['tiles seen', (r) => fmt.int(r.tiles_seen)],
  ['turns', (r) => fmt.int(r.turns)],
  ['tokens', (r) => fmt.int(r.tokens)],
  ['cost', (r) => fmt.usd(r.cost_usd)],
  ['stuck signals', (r) => fmt.int(r.stuck_signals)],
];

/**
 * What tells a run apart in the legend: a sweep run's id is `<sweep>-c<cell>-r<repeat>[-a<attempt>]`, whose start
 * (the sweep's name) every run of the sweep shares, so its tail; any other id, its first 8 characters.
 */
function runTag(id) {
  const tail = /-c\d+-r\d+(?:-a\d+)?$/.exec(id);
  return tail ? `…${tail[0]}` : id.slice(0, 8);
}

async function main() {
  if (!ids) return;
  const data = await shown(() => api('/api/compare', { ids }));
  if (!data) return;
  $('intro').textContent =
    `${data.runs.length} runs on ${data.maze.generator} ${data.maze.width}x${data.maze.height}` +
    ` seed ${data.maze.seed ?? '-'}`;
  $('board').hidden = false;
  const view = new MazeCanvas($('maze'), data.maze);
  const paths = data.runs.map((r, k) => ({
    xs: typed(r.x, Uint16Array),
    ys: typed(r.y, Uint16Array),
    steps: r.steps,
    colour: PATH_COLOURS[k % PATH_COLOURS.length],
  }));
  const longest = Math.max(...paths.map((p) => p.steps));
  const scrub = $('scrub');
  scrub.max = String(longest);
  scrub.value = String(longest);
  const draw = (step) => {
    view.draw({
      paths: paths.map((p) => ({ ...p, upTo: Math.min(step, p.steps) })),
      agents: paths.map((p) => ({
        x: p.xs[Math.min(step, p.steps)],
        y: p.ys[Math.min(step, p.steps)],
        colour: p.colour,
      })),
    });
    $('step').textContent = `${step} / ${longest}`;
  };
  scrub.addEventListener('input', () => draw(Number(scrub.value)));
  draw(longest);
  $('legend').replaceChildren(
    ...data.runs.map((r, k) =>
      el(
        'span',
        { class: 'run-key', title: r.experiment_id },
        el('span', { class: 'swatch', style: { background: paths[k].colour } }),
        r.label ?? r.model ?? r.agent,
        ` (${runTag(r.experiment_id)})`,
      ),
    ),
  );
  $('runs').replaceChildren(
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        el('th', {}, ''),
        data.runs.map((r, k) =>
          el(
            'th',
            { class: 'id', style: { borderTop: `4px solid ${paths[k].colour}` } },
            idLink(`/experiments/${encodeURIComponent(r.experiment_id)}`, r.experiment_id),
          ),
        ),
      ),
    ),
    el(
      'tbody',
      {},
      ROWS.map(([label, value]) =>
        el(
          'tr',
          {},
          el('th', {}, label),
          data.runs.map((r) => el('td', { class: 'n' }, value(r))),
        ),
      ),
    ),
  );
  shortIds($('runs'));
  window.__viewer = {
    ready: true,
    paths: paths.length,
    /** Where each path ends on the canvas, and its colour, for tests that read the drawing. */
    ends: paths.map((p) => ({ ...view.pixelOf(p.xs[p.steps], p.ys[p.steps]), colour: p.colour, steps: p.steps })),
    draw,
  };
}

await main();
window.__viewer ??= { ready: true, paths: 0 };
