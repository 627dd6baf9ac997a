// What `ariadne summary` prints for a run, as the tests that read it catch it: showSummary's stdout, text or JSON.
import { vi } from 'vitest';
import { showSummary } from '../../bin/cli/summary.ts';
import { summaryOf } from '../../results/summary-row.ts';
import type { Sql } from '../../core/store/sql.ts';

/** The summary of run `id` as `ariadne summary` prints it (with `json`: as --json prints it, unparsed). */
export async function summaryOutput(db: Sql, id: string, json: boolean): Promise<string> {
  const s = await summaryOf(db, id);
  const out: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out.push(String(chunk));
    return true;
  });
  try {
    await showSummary(db, s!, json);
  } finally {
    spy.mockRestore();
  }
  return out.join('');
}
