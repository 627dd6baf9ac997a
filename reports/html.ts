// Building self-contained pages: HTML escaping, JSON that cannot close its
// <script> element (model text is untrusted), and assets read from disk to
// be inlined, so a page opens from a file with no network.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const escapeHtml = (s: unknown): string =>
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- database values: String() is the rendering
  String(s ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** JSON for a <script type="application/json"> element: "<", U+2028 and U+2029 are escaped. */
export const scriptJson = (value: unknown): string =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

export const asset = (name: string): string => readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');

/** An asset written as an ES module without imports, as a classic script to inline: its `export`s dropped. */
export const classicScript = (name: string): string => asset(name).replace(/^export /gm, '');

/**
 * A file of a package's dist folder (e.g. Chart.js's UMD build) to inline,
 * found beside the package's entry point (its exports do not list it);
 * "</script" inside it is broken up.
 */
export function packageDistFile(pkg: string, file: string): string {
  const entry = createRequire(import.meta.url).resolve(pkg);
  return readFileSync(join(dirname(entry), file), 'utf8').replace(/<\/script/gi, '<\\/script');
}
