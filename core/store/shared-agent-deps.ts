// What a run's agents share through its database, locally and on AWS alike: the rate limits' token buckets, the
// flight recorder's replies that config.cache answers from, and a fork's prefix.
import type { AgentDeps } from '../providers/agents.ts';
import { sqlExchangeCache } from './exchange-cache-sql.ts';
import { sqlForkPrefixes } from './fork-prefix-sql.ts';
import { sqlRateLimits } from './rate-limit-sql.ts';
import type { Sql } from './sql.ts';

export const sharedAgentDeps = (db: Sql): Pick<AgentDeps, 'rateLimits' | 'cache' | 'forkFrom'> => ({
  rateLimits: sqlRateLimits(db),
  cache: sqlExchangeCache(db),
  forkFrom: sqlForkPrefixes(db),
});
