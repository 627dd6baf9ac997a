// A listing's rows in pages by offset: --limit goes up to 100,000 rows, more than the Data API's 1 MiB per response
// holds. The listing's order must be total (an id breaks ties), so pages do not overlap.
import { readPaged } from '../core/store/pages.ts';

/** Every row of `read(offset, limit)`, page after page (a page over the response limit read again in halves). */
export function offsetPaged<R>(read: (offset: number, limit: number) => Promise<R[]>): Promise<R[]> {
  let offset = 0;
  return readPaged<R>(async (_last, limit) => {
    const rows = await read(offset, limit);
    offset += rows.length;
    return rows;
  });
}
