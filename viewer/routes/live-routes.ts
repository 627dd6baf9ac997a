// /api/live: server-sent events: `hello` when the stream is ready, then one `changes` event per poll that found
// experiments changed (see live-feed.ts), and a comment every 15 s so proxies and the browser keep it open.
import type { FastifyInstance } from 'fastify';
import type { ViewerContext } from '../context.ts';

const HEARTBEAT_MS = 15_000;

export function registerLiveRoutes(app: FastifyInstance, ctx: ViewerContext): void {
  app.get('/api/live', (request, reply) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      connection: 'keep-alive',
    });
    const { ready, unsubscribe } = ctx.feed.subscribe((changes) => {
      res.write(`event: changes\ndata: ${JSON.stringify(changes)}\n\n`);
    });
    // hello once the feed knows where the data stands: a page reads its data again then, and misses nothing.
    // `retry`: how long the browser waits before reconnecting after a drop.
    void ready.then(() =>
      res.write(`retry: 1000\nevent: hello\ndata: ${JSON.stringify({ pollMs: ctx.feed.pollMs })}\n\n`),
    );
    const heartbeat = setInterval(() => res.write(': still here\n\n'), HEARTBEAT_MS);
    const stop = () => {
      clearInterval(heartbeat);
      unsubscribe();
    };
    request.raw.on('close', stop);
    res.on('error', stop);
  });
}
