// Building self-contained pages: HTML escaping, JSON that cannot close its
// <script> element (model text is untrusted), and assets read from disk to
// be inlined, so a page opens from a file with no network.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export const escapeHtml = (s: unknown): string =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** JSON for a <script type="application/json"> element: "<", U+2028 and U+2029 are escaped. */
export const scriptJson = (value: unknown): string =>
  JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

export const asset = (name: string): string => readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');

/** A package file (e.g. Chart.js's UMD build) to inline; "</script" inside it is broken up. */
export function packageFile(specifier: string): string {
  const path = createRequire(import.meta.url).resolve(specifier);
  return readFileSync(path, 'utf8').replace(/<\/script/gi, '<\\/script');
}
