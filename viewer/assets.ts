// The files the viewer serves under /assets/: a fixed list read once at start, so no part of a URL ever becomes a
// file path (a request for anything else, "../" included, is a 404). Chart.js comes from its package, unmodified.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { statFormatModule } from '../reports/stat-format-script.ts';

export interface Asset {
  body: Buffer;
  type: string;
}

const OWN = [
  'viewer.css',
  'common.js',
  'experiments.js',
  'experiment.js',
  'sweeps.js',
  'sweep.js',
  'heatmap.js',
  'compare.js',
  'search.js',
  'play.js',
];
/** Shared with the written report and replay: the sweep report's charts and styles, the maze drawing. */
const REPORT = ['report.js', 'report.css', 'maze-canvas.js', 'maze-legend.css'];

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * The pages' scripts (page-shell.ts), each served bundled with the modules it imports (common.js, stat-format.js,
 * maze-canvas.js): a page waits for one script, not a chain of four, which was ~20 ms of an experiment's first draw
 * at load average 6 (bench/viewer.ts). The modules stay served on their own too.
 */
const PAGE_SCRIPTS = OWN.filter((file) => file.endsWith('.js'));

/** The shared modules the pages import by their served names, from where they live. */
const servedModules: Plugin = {
  name: 'viewer-served-modules',
  setup(b) {
    const at: Record<string, string> = {
      './stat-format.js': fileURLToPath(new URL('../reports/stat-format.ts', import.meta.url)),
      './maze-canvas.js': fileURLToPath(new URL('../reports/assets/maze-canvas.js', import.meta.url)),
    };
    b.onResolve({ filter: /^\.\/(stat-format|maze-canvas)\.js$/ }, (args) => ({ path: at[args.path] }));
  },
};

/** Built once per process: the sources do not change under a running viewer. */
let bundles: Promise<Map<string, Buffer>> | undefined;
const bundled = () => (bundles ??= bundle());

async function bundle(): Promise<Map<string, Buffer>> {
  const out = await build({
    entryPoints: PAGE_SCRIPTS.map((name) => fileURLToPath(new URL(`./assets/${name}`, import.meta.url))),
    bundle: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    outdir: 'bundled',
    plugins: [servedModules],
    logLevel: 'silent',
  });
  return new Map(out.outputFiles.map((f) => [basename(f.path), Buffer.from(f.contents)]));
}

export async function loadAssets(): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  const add = (name: string, path: string) =>
    assets.set(name, { body: readFileSync(path), type: TYPES[name.slice(name.lastIndexOf('.'))] });
  for (const name of OWN) add(name, new URL(`./assets/${name}`, import.meta.url).pathname);
  for (const name of REPORT) add(name, new URL(`../reports/assets/${name}`, import.meta.url).pathname);
  const chart = createRequire(import.meta.url).resolve('chart.js');
  add('chart.umd.min.js', join(dirname(chart), 'chart.umd.min.js'));
  // how every page writes a rate, an interval or a cost: the report's own module, its types stripped
  assets.set('stat-format.js', { body: Buffer.from(statFormatModule()), type: TYPES['.js'] });
  for (const [name, body] of await bundled()) assets.set(name, { body, type: TYPES['.js'] });
  return assets;
}
