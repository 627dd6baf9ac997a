// The play page (ariadne view --play): a person starts a game as agent human and plays it by buttons, arrow keys or
// typed commands. What the page shows is what a model is sent, as the server's entries carry it (the system prompt,
// each turn's first message, each tool result, each picture of the image format), drawn as text, never as HTML.
import { api, el, idLink, post, problem, setUrlState, shown, urlState } from './common.js';

const form = document.getElementById('start');
const game = document.getElementById('game');
const transcript = document.getElementById('transcript');
const statusLine = document.getElementById('play-status');
const typed = document.getElementById('typed');

/** The game as the page holds it: its id, how many entries it has drawn, and whether a move is in flight. */
const state = { id: null, seen: 0, status: null, busy: false };

/** One entry, as an element: a model's text in a <pre>, exactly as sent. */
function entryElement(e) {
  switch (e.kind) {
    case 'system':
      return el(
        'details',
        { class: 'play-system', open: true },
        el('summary', {}, 'system prompt (a model is sent it with every call)'),
        el('pre', {}, e.text),
        el('p', { class: 'legend' }, `tools a model is offered: ${e.tools.join(', ')}`),
      );
    case 'turn':
      return el('h2', { class: 'play-turn' }, `turn ${e.turn}: ${e.actionsLeft} actions`);
    case 'message':
      return el(
        'div',
        { class: 'play-message' },
        el('pre', { class: 'observation' }, e.text),
        e.images.map((i) =>
          el('img', { class: 'play-picture', src: i.src, alt: 'the picture a model is sent', title: i.sha256 }),
        ),
      );
    case 'result':
      return el(
        'div',
        { class: 'play-result' },
        el('p', { class: 'legend' }, `tool result: ${e.tool}`),
        el('pre', { class: 'result' }, e.text),
      );
    case 'move':
      return el('p', { class: 'play-move' }, `> ${e.tool}${e.reasoning ? ` (reasoning: ${e.reasoning})` : ''}`);
    default:
      return el('p', { class: 'play-note' }, e.text);
  }
}

/** The outcome line once the game is over, with the run's page. */
function endLine(view) {
  const o = view.outcome;
  if (!o) return [`stopped: ${view.stopped ?? 'the run ended'}`];
  const how = o.goal_found
    ? `goal found in ${o.actions} actions (optimal ${o.optimal_moves}, efficiency ${Number(o.efficiency).toFixed(3)})`
    : `not solved: ${o.status}${o.stop_reason ? ` (${o.stop_reason})` : ''} after ${o.actions} actions`;
  return [`${how}; the run: `, idLink(`/experiments/${encodeURIComponent(view.id)}`, view.id)];
}

/** Draws what a view adds and where the game stands. */
function apply(view) {
  if (view.from !== state.seen) transcript.replaceChildren();
  transcript.append(...view.entries.map(entryElement));
  state.seen = view.total;
  state.status = view.status;
  const over = view.status === 'ended';
  statusLine.replaceChildren(
    ...(over ? endLine(view).flat() : [view.status === 'your_move' ? 'your move' : 'playing your move...']),
  );
  statusLine.className = `play-status ${view.status}`;
  for (const b of document.querySelectorAll('#pad button, #typed button')) b.disabled = over;
  transcript.lastElementChild?.scrollIntoView({ block: 'nearest' });
  window.__viewer = { ready: true, status: view.status, seen: state.seen, id: view.id };
}

/** Sends one command; a page behind the game (409) reads what is new instead. */
async function send(command) {
  if (state.busy || state.status !== 'your_move') return;
  state.busy = true;
  statusLine.textContent = 'playing your move...';
  try {
    apply(await post(`/api/play/${encodeURIComponent(state.id)}/moves`, { command, seen: state.seen }));
    problem(null);
  } catch (err) {
    problem(err.message);
    if (err.status === 409) await shown(async () => apply(await api(`/api/play/${state.id}`, { from: 0 })));
  } finally {
    state.busy = false;
  }
}

const KEYS = { ArrowUp: 'n', ArrowDown: 's', ArrowRight: 'e', ArrowLeft: 'w', r: 'recall' };

function bindControls() {
  for (const b of document.querySelectorAll('#pad button'))
    b.addEventListener('click', () => {
      const command = b.dataset.command;
      if (command === 'quit' && !confirm('Give up this maze? The run ends, not solved.')) return;
      void send(command);
    });
  typed.addEventListener('submit', (e) => {
    e.preventDefault();
    const line = typed.elements.command.value.trim();
    if (!line) return;
    typed.elements.command.value = '';
    void send(line);
  });
  document.addEventListener('keydown', (e) => {
    if (game.hidden || e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    const command = KEYS[e.key];
    if (!command) return;
    e.preventDefault();
    void send(command);
  });
}

function startGame(view) {
  form.hidden = true;
  game.hidden = false;
  state.id = view.id;
  setUrlState({ id: view.id });
  apply(view);
}

/** The form's choices from the server, the suite's mazes listed by index. */
function fillForm(setup) {
  const options = (select, values, label = (v) => v) =>
    select.replaceChildren(...values.map((v) => el('option', { value: v }, label(v))));
  options(form.elements.observation, setup.observations);
  options(form.elements.generator, setup.generators);
  form.elements.generator.value = setup.generators.includes('medium') ? 'medium' : setup.generators[0];
  options(
    form.elements.suite,
    setup.suites.map((s) => s.ref),
  );
  const mazes = () => {
    const suite = setup.suites.find((s) => s.ref === form.elements.suite.value);
    options(
      form.elements.index,
      (suite?.mazes ?? []).map((m) => m.index),
      (i) => {
        const m = suite.mazes[i];
        return `${i}: ${m.generator} ${m.size}x${m.size} seed ${m.seed}`;
      },
    );
  };
  form.elements.suite.addEventListener('change', mazes);
  mazes();
  document.getElementById('commands-help').textContent = setup.help;
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const f = form.elements;
    const maze =
      f.source.value === 'suite'
        ? { suite: f.suite.value, index: Number(f.index.value) }
        : { generator: f.generator.value, size: Number(f.size.value), seed: Number(f.seed.value) };
    const button = document.getElementById('start-button');
    button.disabled = true;
    statusLine.textContent = 'starting...';
    try {
      startGame(await post('/api/play', { player: f.player.value.trim(), observation: f.observation.value, maze }));
      problem(null);
    } catch (err) {
      problem(err.message);
    } finally {
      button.disabled = false;
    }
  });
}

async function main() {
  const setup = await shown(() => api('/api/play/setup'));
  if (!setup) return;
  bindControls();
  if (!setup.enabled) {
    const off = document.getElementById('play-off');
    off.hidden = false;
    off.textContent =
      'Playing is off in this viewer: it writes runs, and ariadne view is read-only unless started with --play ' +
      '(ariadne view --play, on this machine).';
    window.__viewer = { ready: true, enabled: false };
    return;
  }
  fillForm(setup);
  const { id } = urlState();
  const view = id ? await shown(() => api(`/api/play/${encodeURIComponent(id)}`, { from: 0 })) : undefined;
  if (view) startGame(view);
  else form.hidden = false;
  window.__viewer ??= { ready: true, enabled: true };
}

await main();
