// The files the viewer serves under /assets/: a fixed list read once at start, so no part of a URL ever becomes a
// file path (a request for anything else, "../" included, is a 404). Chart.js comes from its package, unmodified.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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
  'compare.js',
  'search.js',
];
/** Shared with the written report and replay: the sweep report's charts and styles, the maze drawing. */
const REPORT = ['report.js', 'report.css', 'maze-canvas.js', 'maze-legend.css'];

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

export function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const add = (name: string, path: string) =>
    assets.set(name, { body: readFileSync(path), type: TYPES[name.slice(name.lastIndexOf('.'))] });
  for (const name of OWN) add(name, new URL(`./assets/${name}`, import.meta.url).pathname);
  for (const name of REPORT) add(name, new URL(`../reports/assets/${name}`, import.meta.url).pathname);
  const chart = createRequire(import.meta.url).resolve('chart.js');
  add('chart.umd.min.js', join(dirname(chart), 'chart.umd.min.js'));
  // how every page writes a rate, an interval or a cost: the report's own module, its types stripped
  assets.set('stat-format.js', { body: Buffer.from(statFormatModule()), type: TYPES['.js'] });
  return assets;
}
