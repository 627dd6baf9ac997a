// /search?q=...: text across every transcript; the page and its JSON.
import type { FastifyInstance } from 'fastify';
import { pageHtml } from '../page-shell.ts';
import { parseRequest } from '../request-params.ts';
import { searchQuery } from '../queries/transcript-search.ts';
import { searchTranscripts } from '../../results/transcript-search.ts';
import type { ViewerContext } from '../context.ts';

const BODY = `<h1>Search transcripts</h1>
<form id="search" class="filters" method="get" action="/search">
<input name="q" type="search" minlength="2" maxlength="200" placeholder="text in replies, reasoning, tools, errors"
 aria-label="search text" size="50" required>
<label>in <select name="kind"><option value="">everything</option><option value="reply">replies</option>
<option value="reasoning">reasoning</option><option value="tool">tool names</option>
<option value="error">errors</option></select></label>
<button type="submit">search</button>
</form>
<p id="count" class="count"></p>
<ol id="hits" class="hits"></ol>`;

export function registerSearchRoutes(app: FastifyInstance, ctx: ViewerContext): void {
  app.get('/search', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    if (Object.keys(query).length > 0) parseRequest(searchQuery, query);
    return reply
      .type('text/html; charset=utf-8')
      .send(pageHtml({ title: 'Search', script: 'search.js', body: BODY }, ctx.source));
  });
  app.get('/api/search', async (request) => searchTranscripts(ctx.db, parseRequest(searchQuery, request.query)));
}
