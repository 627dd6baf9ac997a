// Every sweep with its progress and cost so far, refreshed when one of its runs changes.
import { api, el, fmt, live, shown, tableParts, throttled } from './common.js';

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
    'failed',
    'succeeded',
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
          el('td', {}, el('a', { href: `/sweeps/${encodeURIComponent(s.sweep_id)}` }, s.sweep_id)),
          el('td', {}, s.description ?? ''),
          el('td', { class: 'n' }, `${s.cells} x ${s.repeats}`),
          el('td', { class: 'n' }, `${fmt.int(s.done)} / ${fmt.int(s.runs)}`),
          el('td', { class: 'n' }, fmt.int(s.running)),
          el('td', { class: 'n' }, fmt.int(s.failed)),
          el('td', { class: 'n' }, fmt.int(s.succeeded)),
          el('td', { class: 'n' }, fmt.usd(s.cost_usd)),
          el('td', {}, fmt.time(s.created_at)),
        ),
      ),
    ),
  );
  window.__viewer = { ready: true, sweeps: data.sweeps.length, loads: (window.__viewer?.loads ?? 0) + 1 };
}

const reload = throttled(() => void load(), 1000);
await load();
live((changes) => changes.some((c) => c.sweep_id) && reload(), reload);
