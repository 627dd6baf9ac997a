// Reads that grow with the data go in pages: the Data API answers at most 1 MiB a call (ResultTooLargeError),
// and how many rows fit depends on the rows (vision cones, model text), so a page that is too large is asked
// for again with half the rows. pg has no such limit and reads the same pages.
import { ResultTooLargeError, type Sql } from './sql.ts';

/** Rows a page asks for until one is too large. */
const PAGE_ROWS = 2000;

/**
 * Rows a page of a view ranked over a whole sweep (sweep_runs: copies found across every run) asks for over `db`.
 * Such a page costs the whole view however few rows it keeps (50-180 ms at 10,000 runs, five or more pages a read),
 * so over pg, which has no response limit, the read is one statement; over the Data API, the pages its 1 MiB allows.
 */
export function sweepPageRows(db: Sql): number {
  return db.transport === 'pg' ? 2 ** 31 - 1 : PAGE_ROWS;
}

/** The rows a page asks for, kept across reads that share it. */
export interface PageSize {
  rows: number;
}

/**
 * The pages of a read, in order. `read(last, limit)` answers at most `limit` rows after `last`, the previous
 * page's last row (undefined for the first page): a keyset read takes its key from it. A page short of its
 * limit is the last. A page over the response limit is read again with half the rows, and so are the pages
 * after it; a single row over the limit throws.
 */
export async function* pagesOf<R>(
  read: (last: R | undefined, limit: number) => Promise<R[]>,
  firstLimit: number | PageSize = PAGE_ROWS,
): AsyncGenerator<R[]> {
  // a PageSize shared by several reads keeps a halving for the reads after (a sweep's actions, batch by batch)
  const size = typeof firstLimit === 'number' ? { rows: firstLimit } : firstLimit;
  let last: R | undefined;
  for (;;) {
    const limit = size.rows;
    let page: R[];
    try {
      page = await read(last, limit);
    } catch (err) {
      if (!(err instanceof ResultTooLargeError) || limit === 1) throw err;
      size.rows = Math.ceil(limit / 2);
      continue;
    }
    if (page.length > 0) {
      yield page;
      last = page[page.length - 1];
    }
    if (page.length < limit) return;
  }
}

/** Every row of a paged read (see pagesOf), for a reader that needs them all at once. */
export async function readPaged<R>(
  read: (last: R | undefined, limit: number) => Promise<R[]>,
  firstLimit = PAGE_ROWS,
): Promise<R[]> {
  const out: R[] = [];
  for await (const page of pagesOf(read, firstLimit)) out.push(...page);
  return out;
}

/**
 * The items of `source`, each asked for as the one before is handed over: while the consumer works on a page (CSV
 * lines, Parquet columns, a file write), the next page's read is already on its way, so the client's work and the
 * database's (and the Data API's) overlap instead of taking turns. One item ahead at most: memory stays one page.
 * Stopping early closes the source once the read in flight has ended; that read's error is then not thrown.
 */
export async function* readAhead<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  let next = it.next();
  let finished = false;
  try {
    for (;;) {
      const item = await next;
      if (item.done) {
        finished = true;
        return;
      }
      next = it.next();
      next.catch(() => undefined); // awaited on the next round; a consumer that stops first leaves it unread
      // one turn of the event loop before the consumer's work: a writer that encodes a page in one synchronous
      // piece (Parquet) would otherwise hold the next request in the client until it is done
      await new Promise((resolve) => setImmediate(resolve));
      yield item.value;
    }
  } finally {
    // an async generator queues return() behind the next() in flight, so the source ends after that read
    if (!finished) await it.return?.();
  }
}
