// Ports for a test: never a fixed number, which something else on the machine may hold (Ollama on 11434, another
// copy of the suite). A port reserved here and closed again is free for the test's server to take, or refuses
// connections for a test that needs a server that is down.
import { createServer } from 'node:net';

/** A port on 127.0.0.1 that nothing listens on now: the kernel's pick, closed again. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
