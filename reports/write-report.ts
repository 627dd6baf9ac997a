// ariadne report: the report file and, beside it, a replay for each run that
// failed or ended by an error (up to a limit), linked relatively so the folder
// can move.
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Sql } from '../core/store/sql.ts';
import { loadReport } from './report-data.ts';
import { reportHtml } from './report-page.ts';
import { loadReplay } from './replay-data.ts';
import { replayHtml } from './replay-page.ts';

export async function writeReport(
  db: Sql,
  sweepId: string,
  out: string,
  maxReplays: number,
  opts: { behaviour?: boolean } = {},
) {
  // the behaviour figures read every move (the viewer's sweep page, refreshed live, has none): on unless asked off
  const data = await loadReport(db, sweepId, { paper: true, behaviour: opts.behaviour ?? true });
  const replayDirName = `${basename(out).replace(/\.html?$/, '')}-replays`;
  const replayDir = join(dirname(out), replayDirName);
  const failures = data.runs
    .filter((r) => r.outcome_class !== 'success' && r.outcome_class !== 'running')
    .slice(0, maxReplays);
  if (failures.length > 0) mkdirSync(replayDir, { recursive: true });
  const written = new Set<string>();
  const replayFiles: string[] = [];
  for (const r of failures) {
    const file = join(replayDir, `${r.experiment_id}.html`);
    writeFileSync(file, replayHtml(await loadReplay(db, r.experiment_id)));
    written.add(r.experiment_id);
    replayFiles.push(file);
  }
  const html = reportHtml(data, (id) => (written.has(id) ? `${replayDirName}/${encodeURIComponent(id)}.html` : null));
  writeFileSync(out, html);
  return { report: out, kb: Math.round(html.length / 1024), replays: written.size, replayDir, replayFiles };
}
