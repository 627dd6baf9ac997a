// The experiments table: filters and sort in the URL (a view can be bookmarked), a page of rows from
// /api/experiments, running rows refreshed live, stale ones flagged with the server's reason.
import { api, el, fmt, idLink, live, setUrlState, shortIds, shown, throttled, urlState, when } from './common.js';

const COLUMNS = [
  ['id', 'experiment'],
  ['sweep', 'sweep'],
  ['model', 'agent / model'],
  ['maze', 'maze'],
  // not sortable: a sweep's varied settings, else those that differ from the defaults (the server's settings_text)
  ['settings', 'settings', false],
  ['status', 'status'],
  ['outcome', 'goal'],
  ['actions', 'actions'],
  ['optimal', 'optimal'],
  ['efficiency', 'efficiency'],
  ['turns', 'turns'],
  ['tiles', 'tiles seen'],
  ['tokens', 'tokens'],
  ['cost', 'cost'],
  ['started', 'started'],
  ['updated', 'last update'],
];
const FILTERS = ['sweep', 'model', 'maze', 'status', 'outcome'];
const FIXED_CHOICES = {
  status: ['running', 'completed', 'timeout', 'failed', 'stuck'],
  outcome: ['success', 'failure', 'unfinished'],
};

let state = { sort: 'started', dir: 'desc', offset: 0, limit: 200, ...urlState() };
state.offset = Number(state.offset) || 0;
state.limit = Number(state.limit) || 200;
const form = document.getElementById('filters');
const table = document.getElementById('experiments');
let shownIds = new Set();
let firstRender = true;

function header() {
  const row = el(
    'tr',
    {},
    el('th', { class: 'pick', title: 'pick runs to compare' }, 'cmp'),
    COLUMNS.map(([key, label, sortable = true]) => {
      if (!sortable) return el('th', { class: key }, label);
      const on = state.sort === key;
      return el(
        'th',
        {
          class: on ? `sorted ${state.dir}` : null,
          'data-sort': key,
          title: `sort by ${label}`,
          onclick: () => {
            state = { ...state, sort: key, dir: on && state.dir === 'desc' ? 'asc' : 'desc', offset: 0 };
            void load();
          },
        },
        label,
        on ? (state.dir === 'desc' ? ' \u25bc' : ' \u25b2') : '',
      );
    }),
  );
  table.tHead.replaceChildren(row);
}

function fillChoices(choices) {
  const lists = { sweep: choices.sweeps, model: choices.models, maze: choices.mazes, ...FIXED_CHOICES };
  for (const name of FILTERS) {
    const select = form.elements[name];
    const current = state[name] ?? '';
    const values = [...new Set([...(lists[name] ?? []), ...(current ? [current] : [])])];
    select.replaceChildren(
      el('option', { value: '' }, 'any'),
      ...values.map((v) => el('option', { value: v, selected: v === current }, v)),
    );
  }
}

const compared = new Set();
function compareLink() {
  const link = document.getElementById('compare-link');
  const ids = [...compared];
  link.hidden = ids.length < 2;
  link.href = `/compare?ids=${ids.map(encodeURIComponent).join(',')}`;
  link.textContent = `compare ${ids.length} runs`;
}

/** A link to another run, its id shortened with the table's (shortIds), whole in its title. */
const runLink = (rid) =>
  el('a', { class: 'id', href: `/experiments/${encodeURIComponent(rid)}`, title: rid, 'data-id': rid }, rid);

function row(r) {
  const maze = `${r.maze_generator} ${r.maze_size}x${r.maze_size}${r.maze_seed === null ? '' : ` seed ${r.maze_seed}`}`;
  const status = el('td', { class: `status ${r.status}${r.stale ? ' stale' : ''}` }, r.status);
  if (r.stale)
    status.append(el('span', { class: 'flag', title: r.stale }, ' STALE'), el('div', { class: 'why' }, r.stale));
  // stopped on purpose (Ctrl-C, SIGTERM): said at once, with the command that picks it up again
  if (r.interrupted)
    status.append(
      el('span', { class: 'flag interrupted', title: r.interrupted }, ' INTERRUPTED'),
      el('div', { class: 'why' }, `${r.interrupted}; resume with: ariadne resume ${r.experiment_id}`),
    );
  // a bundled simulator answered it, not the model named
  if (r.simulated)
    status.append(el('span', { class: 'flag simulated', title: 'answered by a bundled simulator' }, ' SIM'));
  // a replay or a fork (ariadne rerun --replay, ariadne fork): of which run, linked, and a fork's step
  if (r.replay_of)
    status.append(
      el('span', { class: 'flag lineage', title: `a replay of ${r.replay_of}` }, ' REPLAY'),
      el('div', { class: 'why lineage' }, 'of ', runLink(r.replay_of)),
    );
  if (r.forked_from)
    status.append(
      el('span', { class: 'flag lineage', title: `forked from ${r.forked_from} after step ${r.fork_step}` }, ' FORK'),
      el('div', { class: 'why lineage' }, 'of ', runLink(r.forked_from), ` @${r.fork_step}`),
    );
  if (r.failure_reason) status.title = r.failure_reason;
  const box = el('input', {
    type: 'checkbox',
    'aria-label': `compare ${r.experiment_id}`,
    checked: compared.has(r.experiment_id),
    onchange: (e) => {
      if (e.target.checked) compared.add(r.experiment_id);
      else compared.delete(r.experiment_id);
      compareLink();
    },
  });
  return el(
    'tr',
    { 'data-id': r.experiment_id, class: r.status === 'running' ? 'running' : null },
    el('td', { class: 'pick' }, box),
    el('td', { class: 'id' }, idLink(`/experiments/${encodeURIComponent(r.experiment_id)}`, r.experiment_id)),
    el('td', { class: 'sweep' }, r.sweep_id ? idLink(`/sweeps/${encodeURIComponent(r.sweep_id)}`, r.sweep_id) : '-'),
    el('td', {}, r.label ?? r.model ?? (r.player ? `${r.agent} ${r.player}` : r.agent)),
    el('td', { class: 'maze' }, maze),
    el('td', { class: 'settings', title: r.settings_text || null }, r.settings_text || '-'),
    status,
    el('td', { class: r.goal_found ? 'yes' : 'no' }, r.goal_found ? 'found' : (r.stop_reason ?? '-')),
    el('td', { class: 'n' }, fmt.int(r.actions)),
    el('td', { class: 'n optimal' }, fmt.int(r.optimal_moves)),
    el('td', { class: 'n' }, fmt.num(r.efficiency)),
    el('td', { class: 'n turns' }, fmt.int(r.turns)),
    el('td', { class: 'n tiles' }, fmt.int(r.tiles_seen)),
    el('td', { class: 'n tokens' }, fmt.int(r.tokens)),
    el('td', { class: 'n' }, fmt.usd(r.cost_usd)),
    el('td', { class: 'when' }, when(r.started_at)),
    el('td', { class: 'when updated' }, when(r.updated_at)),
  );
}

async function load() {
  setUrlState({ ...state, offset: state.offset || '', limit: state.limit === 200 ? '' : state.limit });
  const data = await shown(() => api('/api/experiments', state));
  if (!data) return;
  header();
  fillChoices(data.choices);
  table.tBodies[0].replaceChildren(...data.rows.map(row));
  shortIds(table);
  shownIds = new Set(data.rows.map((r) => r.experiment_id));
  const last = Math.min(data.total, state.offset + data.rows.length);
  const running = data.rows.filter((r) => r.status === 'running').length;
  const stale = data.rows.filter((r) => r.stale).length;
  const interrupted = data.rows.filter((r) => r.interrupted).length;
  document.getElementById('count').textContent =
    `${fmt.int(data.total)} experiments${data.total ? `, showing ${state.offset + 1}-${last}` : ''}` +
    `${running ? `; ${running} running` : ''}${stale ? `, ${stale} stale` : ''}` +
    `${interrupted ? `, ${interrupted} interrupted` : ''}`;
  document.getElementById('prev').disabled = state.offset === 0;
  document.getElementById('next').disabled = last >= data.total;
  if (firstRender) {
    firstRender = false;
    window.__viewer = { ready: true, listReadyMs: performance.now(), rows: data.rows.length, total: data.total };
  }
  window.__viewer.loads = (window.__viewer.loads ?? 0) + 1;
  window.__viewer.rows = data.rows.length;
}

form.addEventListener('change', () => {
  for (const name of FILTERS) state[name] = form.elements[name].value || undefined;
  state.offset = 0;
  void load();
});
document.getElementById('prev').addEventListener('click', () => {
  state.offset = Math.max(0, state.offset - state.limit);
  void load();
});
document.getElementById('next').addEventListener('click', () => {
  state.offset += state.limit;
  void load();
});
document.getElementById('count').after(el('a', { id: 'compare-link', class: 'compare-link', hidden: true }));

// a change to a shown row, or a new experiment when the first page is sorted by start, reloads the page of rows
const reload = throttled(() => void load(), 500);
live((changes) => {
  if (changes.some((c) => shownIds.has(c.experiment_id)) || (state.offset === 0 && state.sort === 'started')) reload();
});
// stale flags appear without any change to the row: look again every 30 s while something runs
setInterval(() => {
  if (table.querySelector('tr.running')) reload();
}, 30_000);
await load();
