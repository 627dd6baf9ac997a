// A sweep's experiments and actions as CSV, JSON Lines or Parquet, for pandas, R, DuckDB; or a sweep or one run in
// an open format for other tools: Inspect AI eval logs (inspect-log-file.ts) and OpenTelemetry GenAI spans as OTLP
// JSON (otlp-traces.ts). Written as the read model streams them in pages, so a sweep of millions of actions does not
// sit in memory. CSV quoting per RFC 4180; JSON columns stay JSON text.
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import type { Sql } from '../core/store/sql.ts';
import { readAhead } from '../core/store/pages.ts';
import { exportCounts, exportedActions, exportedExperiments } from '../results/sweep-export.ts';
import { csvValue } from './csv.ts';
import { writeParquet } from './parquet-rows.ts';
import type { ExportSource } from '../results/run-export.ts';
import { writeInspectLogs } from './inspect-log-file.ts';
import { writeOtlpTraces } from './otlp-traces.ts';

type TableFormat = 'csv' | 'jsonl' | 'parquet';
/** Formats that take a sweep or one run: Inspect's .json and .eval logs, OTLP JSON traces. */
export const OPEN_FORMATS = ['inspect', 'inspect-eval', 'otlp'] as const;
export type OpenFormat = (typeof OPEN_FORMATS)[number];
export type ExportFormat = TableFormat | OpenFormat;

/** Rows written so far of one file, and how many it will hold. */
export interface ExportProgress {
  table: 'experiments' | 'actions' | 'runs';
  rows: number;
  total: number;
}

async function writeRows(
  file: string,
  format: TableFormat,
  pages: AsyncIterable<Array<Record<string, unknown>>>,
): Promise<number> {
  if (format === 'parquet') return writeParquet(file, pages);
  const out = createWriteStream(file);
  let n = 0;
  let columns: string[] | null = null;
  for await (const rows of pages) {
    for (const row of rows) {
      let line: string;
      if (format === 'jsonl') line = `${JSON.stringify(row)}\n`;
      else {
        if (!columns) {
          columns = Object.keys(row);
          if (!out.write(`${columns.join(',')}\n`)) await once(out, 'drain');
        }
        line = `${columns.map((c) => csvValue(row[c])).join(',')}\n`;
      }
      n++;
      if (!out.write(line)) await once(out, 'drain');
    }
  }
  out.end();
  await once(out, 'finish');
  return n;
}

export async function exportSweep(
  db: Sql,
  sweepId: string,
  format: ExportFormat,
  dir: string,
  onProgress?: (p: ExportProgress) => void,
): Promise<Array<{ file: string; rows: number }>> {
  if (isOpenFormat(format)) return exportOpen(db, { sweep: sweepId }, format, dir, onProgress);
  mkdirSync(dir, { recursive: true });
  const counts = await exportCounts(db, sweepId);
  /** The pages as they pass, counted for the progress line; each next page read while this one is written. */
  async function* counted<T>(table: 'experiments' | 'actions', pages: AsyncIterable<T[]>) {
    let rows = 0;
    for await (const page of readAhead(pages)) {
      yield page;
      rows += page.length;
      onProgress?.({ table, rows, total: counts[table] });
    }
  }
  const experimentsFile = join(dir, `${sweepId}-experiments.${format}`);
  const actionsFile = join(dir, `${sweepId}-actions.${format}`);
  const experiments = await writeRows(
    experimentsFile,
    format,
    counted('experiments', exportedExperiments(db, sweepId)),
  );
  const actions = await writeRows(actionsFile, format, counted('actions', exportedActions(db, sweepId)));
  return [
    { file: experimentsFile, rows: experiments },
    { file: actionsFile, rows: actions },
  ];
}

export const isOpenFormat = (f: ExportFormat): f is OpenFormat => (OPEN_FORMATS as readonly string[]).includes(f);

/**
 * A sweep or one run in an open format: Inspect logs in `<name>-inspect/` under `dir` (one per agent and settings,
 * .json or .eval), or `<name>-traces.otlp.jsonl` (a trace per run).
 */
export function exportOpen(
  db: Sql,
  source: ExportSource,
  format: OpenFormat,
  dir: string,
  onProgress?: (p: ExportProgress) => void,
): Promise<Array<{ file: string; rows: number }>> {
  if (format === 'otlp') return writeOtlpTraces(db, source, dir, onProgress);
  const name = ('sweep' in source ? source.sweep : source.run).replace(/[^A-Za-z0-9_.-]/g, '_');
  const logs = join(dir, `${name}-inspect`);
  return writeInspectLogs(db, source, format === 'inspect' ? 'json' : 'eval', logs, onProgress);
}
