// The shared token buckets of providers' rate limits (migration 009), over the SQL port. Each method is one
// statement, so each is its own transaction on either transport: the row lock INSERT ... ON CONFLICT DO UPDATE
// takes is what makes concurrent Lambdas reserve from a bucket one after another, and none can overspend it.
// The clock is the database's, so callers' clocks need not agree: statement_timestamp(), one value for the whole
// statement, so its three tests of the levels agree with each other.
import type { BucketLevels, BucketSpec, RateLimitStore } from '../providers/llm/rate-limiter.ts';
import type { Sql } from './sql.ts';

// $1 bucket, $2 request capacity, $3 requests per ms, $4 token capacity, $5 tokens per ms, $6 requests, $7 tokens,
// $8 the longest the caller may wait.
// Never negative, and never counted twice: a statement that started before the last update (it waited for the row)
// refills nothing, and updated_at only moves forward.
const ELAPSED_MS = 'GREATEST(0, EXTRACT(EPOCH FROM statement_timestamp() - b.updated_at)::float8 * 1000)';
const REQUESTS = `LEAST($2::float8, b.requests + $3::float8 * ${ELAPSED_MS})`;
const TOKENS = `LEAST($4::float8, b.tokens + $5::float8 * ${ELAPSED_MS})`;
/** Whether levels `r` and `t`, less the call, refill to zero within the caller's longest wait. */
const inTime = (r: string, t: string) =>
  `((${r}) - $6::float8 >= -$8::float8 * $3::float8 AND (${t}) - $7::float8 >= -$8::float8 * $5::float8)`;

/**
 * Refills the bucket for the time elapsed and reserves the call's share: the levels may go below zero, and the
 * caller waits until they would be back at zero (returned levels / rates). A share that could not be back within
 * the caller's longest wait is not taken (granted false).
 */
const RESERVE_SQL = `INSERT INTO rate_limit_buckets AS b (bucket, requests, tokens, granted, updated_at)
SELECT $1, $2::float8 - CASE WHEN ok THEN $6::float8 ELSE 0 END, $4::float8 - CASE WHEN ok THEN $7::float8 ELSE 0 END,
  ok, statement_timestamp()
FROM (SELECT ${inTime('$2::float8', '$4::float8')} AS ok) fresh
ON CONFLICT (bucket) DO UPDATE SET
  requests = ${REQUESTS} - CASE WHEN ${inTime(REQUESTS, TOKENS)} THEN $6::float8 ELSE 0 END,
  tokens = ${TOKENS} - CASE WHEN ${inTime(REQUESTS, TOKENS)} THEN $7::float8 ELSE 0 END,
  granted = ${inTime(REQUESTS, TOKENS)},
  updated_at = GREATEST(b.updated_at, statement_timestamp())
RETURNING granted, requests, tokens`;

const GIVE_BACK_SQL = `UPDATE rate_limit_buckets SET tokens = LEAST($2::float8, tokens + $3::float8) WHERE bucket = $1`;

export function sqlRateLimits(db: Sql): RateLimitStore {
  return {
    async reserve(spec: BucketSpec, requests: number, tokens: number, maxWaitMs: number): Promise<BucketLevels> {
      const { rows } = await db.query<BucketLevels>(
        RESERVE_SQL,
        [
          spec.bucket,
          spec.requestCapacity,
          spec.requestsPerMs,
          spec.tokenCapacity,
          spec.tokensPerMs,
          requests,
          tokens,
          maxWaitMs,
        ],
        { name: 'rate-limit-reserve' },
      );
      return rows[0];
    },
    async giveBack(spec: BucketSpec, tokens: number): Promise<void> {
      await db.query(GIVE_BACK_SQL, [spec.bucket, spec.tokenCapacity, tokens], { name: 'rate-limit-give-back' });
    },
  };
}
