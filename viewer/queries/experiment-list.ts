// The experiments table's request: its filters, sort and page, checked before the read (results/experiment-table.ts)
// runs. The sort names come from the read model's fixed list, never from the request's text.
import { z } from 'zod';
import { EXPERIMENT_SORTS } from '../../results/experiment-table.ts';
import { blankable, int, sweepId, text } from '../request-params.ts';

const STATUSES = ['running', 'completed', 'timeout', 'failed', 'stuck'] as const;
const OUTCOMES = ['success', 'failure', 'unfinished'] as const;

export const listQuery = z
  .object({
    sweep: blankable(sweepId),
    model: blankable(text(200)),
    maze: blankable(
      z
        .string()
        .regex(
          /^[a-z][a-z0-9_-]{0,39}(:\d{1,4}(:\d{1,10})?)?$/,
          'a maze: its generator, generator:size or generator:size:seed',
        ),
    ),
    status: blankable(z.enum(STATUSES)),
    outcome: blankable(z.enum(OUTCOMES)),
    sort: z.enum(EXPERIMENT_SORTS).default('started'),
    dir: z.enum(['asc', 'desc']).default('desc'),
    limit: int(1, 1000).default(200),
    offset: int(0, 10_000_000).default(0),
  })
  .strict();
