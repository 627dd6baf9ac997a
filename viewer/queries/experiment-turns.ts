// The turn panel's request: a window of turns at a time (the read is results/experiment-turns.ts), so a
// 10,000-action run's first draw waits for none of it.
import { z } from 'zod';
import { int } from '../request-params.ts';

/** Turns one request may ask for. */
const MAX_TURNS_PER_REQUEST = 100;

export const turnsQuery = z
  .object({ from: int(1, 10_000_000).default(1), count: int(1, MAX_TURNS_PER_REQUEST).default(20) })
  .strict();
