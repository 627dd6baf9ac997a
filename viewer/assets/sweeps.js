// Every sweep with its progress and cost so far ("unknown" when a run's model has no price, never $0), refreshed
// when one of its runs changes. A run ended by an error (provider, database) is counted apart from the failures.
import { api, el, fmt, idLink, live, shown, tableParts, throttled, when } from './common.js';

async function load() {
  const data = await shown(() => api('/api/sweeps'));
  if (!data) return;
  document.getElementById('count').textContent = `${data.sweeps.length} sweeps, newest first`;
  const head = [
    'sweep',
    'description',
    'cells x repeats',
    'done',
    'running',
    'succeeded',
    'failed',
    'ended by an error',
    'cost so far',
    'created',
  ];
  document.getElementById('sweeps').replaceChildren(
    ...tableParts(
      head,
      data.sweeps.map((s) =>
        el(
          'tr',
          { 'data-id': s.sweep_id },
          el('td', { class: 'id' }, idLink(`/sweeps/${encodeURIComponent(s.sweep_id)}`, s.sweep_id)),
          el('td', {}, s.description ?? ''),
          el('td', { class: 'n' }, `${s.cells} x ${s.repeats}`),
          el('td', { class: 'n' }, `${fmt.int(s.successes + s.failures + s.errors)} / ${fmt.int(s.runs)}`),
          el('td', { class: 'n' }, fmt.int(s.running)),
          el('td', { class: 'n' }, fmt.int(s.successes)),
          el('td', { class: 'n' }, fmt.int(s.failures)),
          el('td', { class: 'n' }, fmt.int(s.errors)),
          el('td', { class: 'n cost' }, s.cost_text),
          el('td', { class: 'when' }, when(s.created_at)),
        ),
      ),
    ),
  );
  window.__viewer = { ready: true, sweeps: data.sweeps.length, loads: (window.__viewer?.loads ?? 0) + 1 };
}

const reload = throttled(() => void load(), 1000);
await load();
live((changes) => changes.some((c) => c.sweep_id) && reload(), reload);
