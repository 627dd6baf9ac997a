// config.cache's lookup over the flight recorder's rows (migration 031): the newest reply a model's server gave to
// the same request key, recorded within the age asked, by a run of the same sweep or by any run. Only replies a server
// gave answer: a reply that was itself a replay or a cache hit is a copy of one that did.
import type { CacheQuery, ExchangeCache } from '../providers/llm/recorded-model.ts';
import { readBodies } from './model-bodies-sql.ts';
import type { Sql } from './sql.ts';

export function sqlExchangeCache(db: Sql): ExchangeCache {
  return {
    async reply(requestKey: string, q: CacheQuery): Promise<string | null> {
      const { rows } = await db.query<{ reply_sha256: string }>(
        `SELECT x.reply_sha256 FROM model_exchanges x
         JOIN experiments e ON e.id = x.experiment_id
         WHERE x.request_key = $1 AND x.answered_by = 'model'
           AND x.recorded_at > now() - $2 * interval '1 hour'
           AND ($3 = 'all' OR e.sweep_id = (SELECT sweep_id FROM experiments WHERE id = $4))
         ORDER BY x.recorded_at DESC LIMIT 1`,
        [requestKey, q.maxAgeHours, q.scope, q.experimentId],
      );
      const hash = rows[0]?.reply_sha256;
      return hash === undefined ? null : ((await readBodies(db, [hash])).get(hash) ?? null);
    },
  };
}
