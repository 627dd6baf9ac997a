// Rows to an Apache Parquet file, a page at a time, for the export: pandas, R's arrow, DuckDB and
// Spark read it with column types, at a fraction of CSV's size. hyparquet-writer (pure JavaScript, MIT, one
// dependency from the same authors) writes each page of rows as row groups as it comes, so memory stays that of
// one page however many rows there are; the alternatives need WebAssembly and an Arrow table in memory
// (parquet-wasm) or are unmaintained (parquetjs).
import type { ParquetWriter } from 'hyparquet-writer';

type ParquetType = 'BOOLEAN' | 'INT64' | 'DOUBLE' | 'STRING' | 'JSON' | 'TIMESTAMP';

/** A column's type from its values in the first page: the first value that is not null decides. */
function typeOf(values: unknown[]): ParquetType {
  const v = values.find((x) => x !== null && x !== undefined);
  if (typeof v === 'boolean') return 'BOOLEAN';
  if (typeof v === 'number')
    return values.every((x) => x === null || x === undefined || Number.isSafeInteger(x)) ? 'INT64' : 'DOUBLE';
  if (typeof v === 'bigint') return 'INT64';
  if (v instanceof Date) return 'TIMESTAMP';
  if (v !== undefined && typeof v === 'object') return 'JSON';
  return 'STRING'; // strings, and columns with no value in the first page
}

/** A value as its column's type holds it (a later page may differ: an integer column meeting a fraction). */
function cell(type: ParquetType, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'INT64':
      return BigInt(Math.round(Number(v)));
    case 'DOUBLE':
      return Number(v);
    case 'BOOLEAN':
      return Boolean(v);
    case 'TIMESTAMP':
      return v instanceof Date ? v : new Date(v as string | number); // the Data API's timestamps are Dates too
    case 'JSON':
    case 'STRING':
      return typeof v === 'string' ? v : v instanceof Date ? v.toISOString() : JSON.stringify(v);
  }
}

const SCHEMA: Record<ParquetType, object> = {
  BOOLEAN: { type: 'BOOLEAN' },
  INT64: { type: 'INT64' },
  DOUBLE: { type: 'DOUBLE' },
  STRING: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
  JSON: { type: 'BYTE_ARRAY', converted_type: 'JSON' },
  TIMESTAMP: { type: 'INT64', converted_type: 'TIMESTAMP_MILLIS' },
};

/**
 * Writes the pages to `file`; returns the rows written. The columns and their types are those of the first page's
 * first row (every page of one query has the same columns); a file of no rows has no columns.
 */
export async function writeParquet(
  file: string,
  pages: AsyncIterable<Array<Record<string, unknown>>>,
): Promise<number> {
  const { ParquetWriter, fileWriter } = await import('hyparquet-writer'); // loaded by the export that needs it
  let writer: ParquetWriter | null = null;
  let columns: Array<{ name: string; type: ParquetType }> = [];
  let n = 0;
  for await (const rows of pages) {
    if (rows.length === 0) continue;
    if (!writer) {
      columns = Object.keys(rows[0]).map((name) => ({ name, type: typeOf(rows.map((r) => r[name])) }));
      writer = new ParquetWriter({
        writer: fileWriter(file),
        schema: [
          { name: 'root', num_children: columns.length },
          ...columns.map((c) => ({ name: c.name, repetition_type: 'OPTIONAL', ...SCHEMA[c.type] })),
        ] as never,
        createdBy: 'ariadne export',
      });
    }
    await writer.write({
      columnData: columns.map((c) => ({ name: c.name, data: rows.map((r) => cell(c.type, r[c.name])) as never })),
      rowGroupSize: rows.length,
    });
    n += rows.length;
  }
  writer ??= new ParquetWriter({ writer: fileWriter(file), schema: [{ name: 'root', num_children: 0 }] as never });
  await writer.finish();
  return n;
}
