// The search page's request: the text (matched literally, case-insensitively), one kind of text or all, and how many
// hits. The search itself is results/transcript-search.ts.
import { z } from 'zod';
import { SEARCH_KINDS } from '../../results/transcript-search.ts';
import { blankable, int, text } from '../request-params.ts';

export const searchQuery = z
  .object({
    q: text(200).refine((q) => q.length >= 2, 'at least 2 characters'),
    kind: blankable(z.enum(SEARCH_KINDS)),
    limit: int(1, 200).default(50),
  })
  .strict();
