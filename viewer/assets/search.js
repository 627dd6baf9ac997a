// Search across transcripts: the form's text and kind in the URL, hits from /api/search with the match marked
// (the snippet split around it into text nodes: model text is never parsed as HTML), each linked to its step.
import { api, el, idLink, shortIds, shown, urlState } from './common.js';

const form = document.getElementById('search');
const state = urlState();
form.elements.q.value = state.q ?? '';
form.elements.kind.value = state.kind ?? '';
// a blank kind is left out of the URL rather than sent empty
form.addEventListener('submit', (e) => {
  e.preventDefault();
  const q = new URLSearchParams({ q: form.elements.q.value.trim() });
  if (form.elements.kind.value) q.set('kind', form.elements.kind.value);
  location.search = q.toString();
});

/** The snippet with each case-insensitive occurrence of `q` in a <mark>. */
function marked(snippet, q) {
  const out = [];
  const lower = snippet.toLowerCase();
  const needle = q.toLowerCase();
  let from = 0;
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, from)) {
    out.push(snippet.slice(from, at), el('mark', {}, snippet.slice(at, at + needle.length)));
    from = at + needle.length;
  }
  out.push(snippet.slice(from));
  return out;
}

async function main() {
  if (!state.q) return;
  const data = await shown(() => api('/api/search', { q: state.q, kind: state.kind }));
  if (!data) return;
  document.getElementById('count').textContent =
    data.hits.length === 0
      ? `nothing matches "${data.query}"`
      : `${data.hits.length}${data.more ? '+' : ''} hits for "${data.query}", newest experiments first`;
  document.getElementById('hits').replaceChildren(
    ...data.hits.map((h) => {
      const where = `/experiments/${encodeURIComponent(h.experiment_id)}${h.step ? `?step=${h.step}` : ''}`;
      return el(
        'li',
        { class: 'hit', 'data-kind': h.kind },
        idLink(where, h.experiment_id),
        ` ${h.model ?? h.agent}, ${h.turn ? `turn ${h.turn}` : 'the run'}${h.step ? `, step ${h.step}` : ''} `,
        el('span', { class: 'kind' }, h.kind),
        el('pre', { class: 'snippet' }, marked(h.snippet, data.query)),
      );
    }),
  );
  shortIds(document.getElementById('hits'));
  window.__viewer = { ready: true, hits: data.hits.length };
}

await main();
window.__viewer ??= { ready: true, hits: 0 };
