// Step Functions calls of the sweep emulation, made by the real SFNClient on worker threads (sfn-client-worker.mjs):
// 20,000 calls in one thread spend most of their time in the SDK's own per-call work, not in the servers.
import { Worker } from 'node:worker_threads';

/** Worker threads for the Map's SDK calls: the main thread, which serves them, is mostly idle meanwhile. */
export const SDK_THREADS = 2;

/** An SDK error as the worker thread reports it: the SDK's exception name and message. */
class SdkCallError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

/**
 * The Step Functions SDK client on worker threads (sfn-client-worker.mjs), one call per message, spread over the
 * threads in turn: the SDK's per-call cost, not the servers', bounds a 10,000-item Map here.
 */
export class SfnClientWorkers {
  private readonly workers: Worker[];
  private readonly pending = new Map<
    number,
    { resolve: (o: Record<string, unknown>) => void; reject: (e: Error) => void }
  >();
  private nextId = 0;

  constructor(
    private readonly endpoint: string,
    private readonly region: string,
    threads: number,
  ) {
    this.workers = Array.from({ length: threads }, () => {
      const worker = new Worker(new URL('./sfn-client-worker.mjs', import.meta.url));
      worker.on(
        'message',
        (m: { id: number; ok: boolean; output?: Record<string, unknown>; name?: string; message?: string }) => {
          const call = this.pending.get(m.id)!;
          this.pending.delete(m.id);
          if (m.ok) call.resolve(m.output!);
          else call.reject(new SdkCallError(m.name!, m.message!));
        },
      );
      worker.on('error', (err) => {
        for (const call of this.pending.values()) call.reject(err);
        this.pending.clear();
      });
      return worker;
    });
  }

  send(accessKeyId: string, command: string, input: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const message = { id, endpoint: this.endpoint, region: this.region, accessKeyId, command, input };
      this.workers[id % this.workers.length].postMessage(message);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
