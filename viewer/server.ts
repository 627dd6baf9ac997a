// `ariadne view`: a read-only web viewer over the results database, on Fastify (typed routes, a router that never
// maps a URL to a file, hooks for security headers), on the loopback interface only; it refuses a foreign Host header
// (DNS rebinding), its Content-Security-Policy runs only its own scripts, every query is fixed SQL with parameters,
// and the only files served are assets.ts's list. It answers GET only, but for the play page's POST routes with
// --play (routes/play-routes.ts: a person's games, written through the engine, refused from any other origin).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SqlDatabase } from '../core/store/sql.ts';
import { ExperimentNotFoundError, InvalidInputError } from '../core/errors.ts';
import { loadAssets } from './assets.ts';
import { LiveFeed } from './live-feed.ts';
import { problemHtml } from './page-shell.ts';
import { InvalidRequestError } from './request-params.ts';
import { NotFound, type ViewerContext } from './context.ts';
import { registerExperimentRoutes } from './routes/experiment-routes.ts';
import { registerPictureRoutes } from './routes/picture-routes.ts';
import { registerLiveRoutes } from './routes/live-routes.ts';
import { registerSweepRoutes } from './routes/sweep-routes.ts';
import { registerCompareRoutes } from './routes/compare-routes.ts';
import { registerSearchRoutes } from './routes/search-routes.ts';
import { ForeignOriginError, registerPlayRoutes } from './routes/play-routes.ts';
import { MoveRefusedError, PlaySessions } from './play-sessions.ts';
import type { Database } from '../core/store/database.ts';
import type { ParameterCache } from '../core/config/parameters.ts';

export interface ViewerOptions {
  db: SqlDatabase;
  /** Where the data comes from, in words, shown on every page ("embedded Postgres", "stack Ariadne (Data API)"). */
  source: string;
  /** How often live pages' data is checked for changes. */
  pollMs: number;
  /** The clock stale flags are judged by (tests move it). */
  now?: () => Date;
  /**
   * The play page's games (ariadne view --play): the writable database their runs go to and the parameters they are
   * started with; absent, the page says playing is off.
   */
  play?: { db: Database; parameters?: ParameterCache };
}

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * The viewer's routes, not listening. `allowedHosts` (filled once the port is known) are the Host headers it
 * answers; while it is empty every Host is answered (tests that inject requests).
 */
async function buildViewer(options: ViewerOptions, allowedHosts = new Set<string>()): Promise<FastifyInstance> {
  // forceCloseConnections: live pages hold a stream open, which must not keep close() waiting
  const { default: Fastify } = await import('fastify'); // loaded by `view` alone of the commands
  const app = Fastify({
    logger: false,
    routerOptions: { maxParamLength: 200 },
    return503OnClosing: true,
    forceCloseConnections: true,
  });
  const feed = new LiveFeed(options.db, options.pollMs, (err) =>
    process.stderr.write(`ariadne view: live updates failed: ${err instanceof Error ? err.message : String(err)}\n`),
  );
  const ctx: ViewerContext = {
    db: options.db,
    pageRows: options.db.transport === 'pg' ? 20_000 : undefined,
    source: options.source,
    feed,
    now: options.now ?? (() => new Date()),
    ...(options.play ? { play: new PlaySessions(options.play) } : {}),
  };

  app.addHook('onRequest', async (request, reply) => {
    if (allowedHosts.size > 0 && !allowedHosts.has(request.headers.host ?? '')) {
      await reply
        .code(403)
        .type('text/plain; charset=utf-8')
        .send(`refused: this viewer answers only requests addressed to ${[...allowedHosts][0]}\n`);
    }
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(SECURITY_HEADERS);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
  app.setErrorHandler(async (err, request, reply) => sendProblem(err, request, reply, options.source));
  app.setNotFoundHandler(async (request, reply) =>
    sendProblem(new NotFound(`nothing at ${request.url.slice(0, 200)}`), request, reply, options.source),
  );
  app.addHook('onClose', async () => {
    feed.close();
    // the games left: each turn in flight commits and each run is kept, interrupted, before the database closes
    await ctx.play?.close();
  });

  const assets = await loadAssets();
  app.get<{ Params: { name: string } }>('/assets/:name', async (request, reply) => {
    const asset = assets.get(request.params.name);
    if (!asset) throw new NotFound(`no asset named ${JSON.stringify(request.params.name.slice(0, 100))}`);
    return reply.type(asset.type).header('cache-control', 'no-cache').send(asset.body);
  });
  registerExperimentRoutes(app, ctx);
  registerPictureRoutes(app, ctx);
  registerLiveRoutes(app, ctx);
  registerSweepRoutes(app, ctx);
  registerCompareRoutes(app, ctx);
  registerSearchRoutes(app, ctx);
  registerPlayRoutes(app, ctx);
  return app;
}

export interface RunningViewer {
  url: string;
  close(): Promise<void>;
}

/** The viewer listening on `host` (loopback by default) and `port` (0: any free port). */
export async function startViewer(options: ViewerOptions & { host?: string; port?: number }): Promise<RunningViewer> {
  const allowedHosts = new Set<string>();
  const app = await buildViewer(options, allowedHosts);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  const names = host === '127.0.0.1' || host === 'localhost' ? ['127.0.0.1', 'localhost'] : [host];
  for (const name of names) allowedHosts.add(`${name}:${port}`);
  return { url: `http://${names[0]}:${port}/`, close: () => app.close() };
}

/** Nothing at this URL, or no such thing in the database: 404 with the message. */

async function sendProblem(err: unknown, request: FastifyRequest, reply: FastifyReply, source: string) {
  const { status, body } = problemOf(err);
  if (status === 500)
    process.stderr.write(
      `ariadne view: ${request.method} ${request.url}: ${err instanceof Error ? err.stack : String(err)}\n`,
    );
  if (request.url.startsWith('/api/')) return reply.code(status).send({ error: body });
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(problemHtml(status, body.message, source));
}

function problemOf(err: unknown): { status: number; body: { name: string; message: string; field?: string } } {
  if (err instanceof InvalidRequestError)
    return { status: 400, body: { name: err.name, message: err.message, field: err.field } };
  // the play page: a move that is not due (a double click, a page behind the game); a write from another origin
  if (err instanceof MoveRefusedError) return { status: 409, body: { name: err.name, message: err.message } };
  if (err instanceof ForeignOriginError) return { status: 403, body: { name: err.name, message: err.message } };
  // InvalidInputError: a results reader's "no sweep named ..." or "no agent ... in sweep ..."
  if (err instanceof ExperimentNotFoundError || err instanceof NotFound || err instanceof InvalidInputError)
    return { status: 404, body: { name: err.name, message: err.message } };
  const e = err as { statusCode?: number; name?: string; message?: string };
  // Fastify's own refusals (a malformed URL, a method without a route) keep their status
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500)
    return { status: e.statusCode, body: { name: e.name ?? 'BadRequest', message: e.message ?? 'bad request' } };
  return {
    status: 500,
    body: { name: e.name ?? 'Error', message: `the viewer could not answer: ${e.message ?? String(err)}` },
  };
}
