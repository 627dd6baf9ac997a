// What every viewer page shares: JSON from /api/ (a refusal shown with its reason), the live stream, DOM building
// that never parses data as HTML (model text is untrusted), and number formats: rates, intervals, efficiencies and
// costs as reports/stat-format.ts writes them (served as /assets/stat-format.js), so no page rounds its own way.
import { formatCost, formatNumber, formatRate } from './stat-format.js';

/** Elements from data: text always goes in as text. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    // CSSOM, not a style attribute: the Content-Security-Policy refuses inline style attributes
    else if (k === 'style') Object.assign(node.style, v);
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/** A table's head and body: `headings` as text, `rows` as <tr> elements. */
export function tableParts(headings, rows) {
  return [
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        headings.map((h) => el('th', {}, h)),
      ),
    ),
    el('tbody', {}, rows),
  ];
}

/** Shows why something could not be shown (or clears it with null). */
export function problem(message) {
  const p = document.getElementById('problem');
  if (!p) return;
  p.hidden = message === null;
  p.textContent = message ?? '';
}

/** GET /api/... with query parameters; a refusal throws with the server's reason. */
export async function api(path, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const url = q.size > 0 ? `${path}?${q}` : path;
  // no extra headers: a request the page preloaded is taken only by a fetch that asks the same way
  return jsonOf(await fetch(url));
}

/** POST JSON to /api/...; a refusal throws with the server's reason and status. */
export async function post(path, body) {
  const headers = { 'content-type': 'application/json' };
  return jsonOf(await fetch(path, { method: 'POST', headers, body: JSON.stringify(body) }));
}

/** A response's JSON body; a refusal throws with the server's reason and status. */
async function jsonOf(res) {
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    const err = new Error(body?.error?.message ?? `${res.status} ${res.statusText}`);
    err.status = res.status;
    throw err;
  }
  return body;
}

/** Runs `fn`, showing its failure in the page instead of the console. */
export async function shown(fn) {
  try {
    const value = await fn();
    problem(null);
    return value;
  } catch (err) {
    problem(err.message);
    return undefined;
  }
}

/**
 * Live changes: `onChanges(rows)` for each batch of experiments that changed. `onReady()` when the stream starts
 * (and again after a reconnect): read the page's data again then, since changes before it were not sent.
 */
export function live(onChanges, onReady = () => {}) {
  const state = document.getElementById('live-state');
  if (state) state.hidden = false; // only pages that listen show the indicator
  const source = new EventSource('/api/live');
  const show = (text, cls) => {
    if (!state) return;
    state.textContent = text;
    state.className = `live-state ${cls}`;
  };
  source.addEventListener('hello', () => {
    show('live', 'on');
    onReady();
  });
  source.addEventListener('changes', (e) => onChanges(JSON.parse(e.data)));
  source.addEventListener('error', () => show('reconnecting', 'off'));
  return () => source.close();
}

/** Calls `fn` at most once per `ms`, the last call winning. */
export function throttled(fn, ms) {
  let timer = null;
  let again = false;
  const run = () => {
    timer = null;
    if (again) {
      again = false;
      fn();
      timer = setTimeout(run, ms);
    }
  };
  return () => {
    if (timer) {
      again = true;
      return;
    }
    fn();
    timer = setTimeout(run, ms);
  };
}

/**
 * An integer's digits in groups of three, as toLocaleString('en-US') writes them (anything else goes to it): Intl's
 * first use in a page costs ~15 ms of its first draw.
 */
function grouped(n) {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 || Object.is(n, -0) ? `-${digits}` : digits;
}

export const fmt = {
  int: (v) => (v === null || v === undefined ? '-' : grouped(Number(v))),
  num: (v, digits = 3) => formatNumber(v === null || v === undefined ? v : Number(v), digits),
  pct: (v) => formatRate(v === null || v === undefined ? v : Number(v)),
  /** A cost; null is a model without a price: "unknown", never $0 or a blank. */
  usd: (v) => formatCost(v === null || v === undefined ? v : Number(v)),
  time: (v) => (v ? new Date(v).toISOString().replace('T', ' ').slice(0, 19) : '-'),
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A time on one line, in UTC as fmt.time writes it: short ("Nov 23 14:05" in this year, "2025-11-23" before), the
 * full time in its title (and its datetime attribute).
 */
export function when(v) {
  if (!v) return '-';
  const d = new Date(v);
  const full = fmt.time(v);
  const short =
    d.getUTCFullYear() === new Date().getUTCFullYear()
      ? `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()} ${full.slice(11, 16)}`
      : full.slice(0, 10);
  return el('time', { datetime: d.toISOString(), title: `${full} UTC` }, short);
}

/**
 * A link to an experiment or sweep by its id, on one line, with a button that copies the whole id. It shows the whole
 * id; an experiment's is shortened by shortIds once the page's ids are known. Its title is always the whole id.
 */
export function idLink(href, id) {
  const text = String(id);
  const experiment = href.startsWith('/experiments/');
  return [
    el('a', { class: 'id', href, title: text, 'data-id': experiment ? text : null }, text),
    // drawn by the CSS: a glyph for "copy" is missing from many fonts
    el('button', {
      type: 'button',
      class: 'copy-id',
      title: `copy ${text}`,
      'aria-label': `copy ${text}`,
      onclick: copyId,
    }),
  ];
}

/** The shortest an id is shown: a random id's first 8 characters already tell thousands apart. */
const SHORTEST_ID = 8;

const commonLength = (a, b) => {
  let n = 0;
  while (n < a.length && a[n] === b[n]) n++;
  return n;
};

/**
 * Shows each experiment id under `root` as its shortest prefix (of at least SHORTEST_ID characters, then "…") that
 * no other experiment id there starts with, or whole when that would save nothing: a sweep run's id differs at its
 * end, and is shown whole. Called again after each render, since the ids on the page change.
 */
export function shortIds(root = document) {
  const links = Array.from(root.querySelectorAll('a.id[data-id]'));
  // sorted, the ids sharing the longest prefix with one are its neighbours
  const ids = [...new Set(links.map((a) => a.dataset.id))].sort();
  const shown = new Map(
    ids.map((id, k) => {
      const common = Math.max(commonLength(id, ids[k - 1] ?? ''), commonLength(id, ids[k + 1] ?? ''));
      const n = Math.max(SHORTEST_ID, common + 1);
      return [id, n >= id.length - 1 ? id : `${id.slice(0, n)}\u2026`];
    }),
  );
  for (const a of links) if (a.textContent !== shown.get(a.dataset.id)) a.textContent = shown.get(a.dataset.id);
}

/** The copy button: the whole id to the clipboard, and the button says it did (or could not) for a moment. */
function copyId(event) {
  const button = event.currentTarget;
  const id = button.previousElementSibling?.title ?? '';
  const said = (ok) => {
    button.classList.add(ok ? 'copied' : 'not-copied');
    setTimeout(() => button.classList.remove('copied', 'not-copied'), 1200);
  };
  // the Clipboard API needs a secure context (localhost is one); elsewhere, the older copy of a selection
  if (navigator.clipboard)
    navigator.clipboard.writeText(id).then(
      () => said(true),
      () => said(false),
    );
  else {
    const area = el('textarea', { readonly: true, class: 'copy-source' }, id);
    document.body.append(area);
    area.select();
    said(document.execCommand('copy'));
    area.remove();
  }
}

/**
 * Lines as text, the first `first` shown and the rest folded under "N more": hundreds of stuck signals would push
 * everything after them off the screen.
 */
export function foldedLines(lines, first = 5) {
  if (lines.length <= first + 1) return lines.join('\n');
  const rest = lines.slice(first);
  return [
    lines.slice(0, first).join('\n'),
    el('details', { class: 'more' }, el('summary', {}, `${rest.length} more`), rest.join('\n')),
  ];
}

/** The page's query string as an object, and a way to write it back without a reload. */
export function urlState() {
  return Object.fromEntries(new URLSearchParams(location.search));
}
export function setUrlState(state) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(state)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  history.replaceState(null, '', q.size > 0 ? `${location.pathname}?${q}` : location.pathname);
}

// the replay's base64 decoders live with the maze drawing, which the replay file inlines without imports
export { bytes, typed } from './maze-canvas.js';
