// An HTTP proxy in front of a simulator that keeps chosen requests in flight until the test lets them go: a turn's
// model call held open while the test sends a signal to the process making it.
import { createServer } from 'node:http';

export interface HoldingProxy {
  url: string;
  /** The requests held now. */
  held(): number;
  /** Every held request goes on to the simulator. */
  releaseAll(): void;
  close(): Promise<void>;
}

/**
 * Forwards every request to `target`; one for which `hold(path, body)` says true waits until releaseAll, and
 * `onHeld` is called once it waits.
 */
export async function startHoldingProxy(
  target: string,
  hold: (path: string, body: Buffer) => boolean | Promise<boolean>,
  onHeld: (proxy: HoldingProxy) => void = () => {},
): Promise<HoldingProxy> {
  const waiting: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        if (await hold(req.url ?? '/', body)) {
          const released = new Promise<void>((resolve) => waiting.push(resolve));
          onHeld(proxy);
          await released;
        }
        const answer = await fetch(`${target}${req.url}`, {
          method: req.method,
          headers: { 'content-type': 'application/json' },
          body: req.method === 'GET' ? undefined : body,
        });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: HoldingProxy = {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    held: () => waiting.length,
    releaseAll: () => {
      for (const release of waiting.splice(0)) release();
    },
    close: () => {
      proxy.releaseAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
