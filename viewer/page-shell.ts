// Every viewer page is this shell: the navigation, a main element its script fills, and the script as a module from
// /assets/ (the Content-Security-Policy allows no inline script), bundled with its imports (assets.ts). What a page
// shows comes from /api/ as JSON.
import { escapeHtml } from '../reports/html.ts';

const NAV: Array<[string, string]> = [
  ['/', 'Experiments'],
  ['/sweeps', 'Sweeps'],
  ['/compare', 'Compare'],
  ['/search', 'Search'],
  ['/play', 'Play'],
];

export interface PageSpec {
  title: string;
  /** The page's module under /assets/. */
  script: string;
  /** Static markup the script fills in. */
  body: string;
  /** Extra classic scripts loaded before the module (Chart.js). */
  before?: string[];
  /** Extra style sheets under /assets/. */
  styles?: string[];
}

export function pageHtml(spec: PageSpec, source: string): string {
  const nav = NAV.map(([href, label]) => `<a href="${href}">${label}</a>`).join('');
  // the viewer's own styles last: they win over a shared sheet's (the report's body and table rules)
  const styles = [...(spec.styles ?? []), 'viewer.css']
    .map((s) => `<link rel="stylesheet" href="/assets/${s}">`)
    .join('');
  const before = (spec.before ?? []).map((s) => `<script src="/assets/${s}"></script>`).join('');
  // the page's script fetched from the head: an experiment's page streams its first read before the script's tag
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(spec.title)} - Ariadne</title><link rel="icon" href="data:,">${styles}
<link rel="modulepreload" href="/assets/${spec.script}"></head>
<body>
<header class="top"><b>Ariadne</b><nav>${nav}</nav><span class="source">${escapeHtml(source)}</span>
<span id="live-state" class="live-state" title="live updates" hidden>connecting</span></header>
<main id="main">
${spec.body}
</main>
<p id="problem" class="problem" role="alert" hidden></p>
${before}<script type="module" src="/assets/${spec.script}"></script>
</body></html>
`;
}

/** A page for a request that cannot be served (bad input, nothing found), with the reason. */
export function problemHtml(status: number, message: string, source: string): string {
  return pageHtml(
    {
      title: status === 404 ? 'Not found' : 'Not accepted',
      script: 'common.js',
      body: `<h1>${status === 404 ? 'Not found' : 'Not accepted'}</h1><p class="problem">${escapeHtml(message)}</p>`,
    },
    source,
  );
}
