// The flight recorder's stored forms, kept within the RDS Data API's row limit (aws-facts: data-api.max-row-bytes):
// a body in parts of at most 8,192 characters (migration 032), and a request whose manifest would pass its limit with
// its message list stored as a body. Reads go in pages (pages.ts), so a long run's record passes its 1 MiB responses.
import type { RequestManifest } from '../providers/llm/model-request.ts';
import { canonicalJson, sha256 } from '../providers/llm/model-request.ts';
import { readPaged, sweepPageRows } from './pages.ts';
import type { Sql } from './sql.ts';
import { jsonbBytes, LIMITS } from './stored-limits.ts';

/** Characters of a body part: at most 4 bytes each in UTF-8, so a part is at most 32 KiB (stored-limits.ts). */
const BODY_PART_CHARS = 8192;

/** A body cut into parts of at most BODY_PART_CHARS characters, as Postgres counts them (code points). */
export function bodyParts(text: string): string[] {
  if (text.length <= BODY_PART_CHARS) return [text]; // code points never outnumber UTF-16 units
  const parts: string[] = [];
  let [start, count] = [0, 0];
  for (let i = 0; i < text.length; count++) {
    if (count === BODY_PART_CHARS) {
      parts.push(text.slice(start, i));
      [start, count] = [i, 0];
    }
    i += text.codePointAt(i)! > 0xffff ? 2 : 1;
  }
  parts.push(text.slice(start));
  return parts;
}

/** A manifest as stored: a message list that would pass the row's limit is kept as a body, named by its hash. */
export type StoredManifest = Omit<RequestManifest, 'messages'> & { messages: string[] | { body: string } };

/** The stored form of `manifest`; a message list moved out is added to `bodies`. */
export function storedManifest(manifest: RequestManifest, bodies: Map<string, string>): StoredManifest {
  if (jsonbBytes(manifest) <= LIMITS['model_requests.manifest']) return manifest;
  const list = canonicalJson(manifest.messages);
  const hash = sha256(list);
  bodies.set(hash, list);
  return { ...manifest, messages: { body: hash } };
}

/** The bodies of `hashes`, each joined from its parts; a hash not stored is absent. */
export async function readBodies(db: Sql, hashes: Iterable<string>): Promise<Map<string, string>> {
  const wanted = [...new Set(hashes)];
  const out = new Map<string, string>();
  if (wanted.length === 0) return out;
  type Part = { sha256: string; part: number; body: string };
  const rows = await readPaged<Part>(
    async (last, limit) =>
      (
        await db.query<Part>(
          `SELECT sha256, part, body FROM model_bodies
           WHERE sha256 = ANY($1::text[]) AND (sha256, part) > ($2, $3)
           ORDER BY sha256, part LIMIT $4`,
          [wanted, last?.sha256 ?? '', last?.part ?? -1, limit],
        )
      ).rows,
    sweepPageRows(db),
  );
  for (const r of rows) out.set(r.sha256, (out.get(r.sha256) ?? '') + r.body);
  return out;
}

/** The manifests of `keys`, as recorded (a message list stored as a body read back). */
export async function readManifests(db: Sql, keys: Iterable<string>): Promise<Map<string, RequestManifest>> {
  const wanted = [...new Set(keys)];
  type Row = { request_key: string; manifest: StoredManifest };
  const rows =
    wanted.length === 0
      ? []
      : await readPaged<Row>(
          async (last, limit) =>
            (
              await db.query<Row>(
                `SELECT request_key, manifest FROM model_requests WHERE request_key = ANY($1::text[])
                 AND request_key > $2 ORDER BY request_key LIMIT $3`,
                [wanted, last?.request_key ?? '', limit],
              )
            ).rows,
          sweepPageRows(db),
        );
  const lists = await readBodies(
    db,
    rows.flatMap((r) => (Array.isArray(r.manifest.messages) ? [] : [r.manifest.messages.body])),
  );
  const messagesOf = (m: StoredManifest) => {
    if (Array.isArray(m.messages)) return m.messages;
    const list = lists.get(m.messages.body);
    if (list === undefined) throw new Error(`the record is missing the message list ${m.messages.body}`);
    return JSON.parse(list) as string[];
  };
  return new Map(rows.map((r) => [r.request_key, { ...r.manifest, messages: messagesOf(r.manifest) }]));
}
