// What bench/engine.ts times, compiled as the CLI is (bin/compile-cli.ts compileModule) and run in a process of its
// own, as `ariadne run` runs it: the bench's parent process also writes the plain rows through pg, and sharing a
// process with that (its pg protocol code, its heap, its JIT's feedback) cost the engine 0.1 ms a turn it never
// pays in the CLI. Forked with an IPC channel, it runs one experiment per message and answers with its time.
import type { SqlValue } from '../core/store/sql.ts';
import { openDatabase, type Database } from '../core/store/database.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import type { StartExecutionInput } from '../core/machine/contracts.ts';

export interface RunnerRequest {
  url: string;
  schema: string;
  input: StartExecutionInput;
  /** Send back every turn's commit statement (the bench replays them alone). */
  record?: boolean;
}

export interface Statement {
  name: string;
  text: string;
  values: SqlValue[];
}

export interface RunnerReply {
  seconds: number;
  /** CPU seconds of this process during the run. */
  nodeCpu: number;
  experimentId: string;
  summary: { actions: number; turns: number };
  events: number;
  /** This process's heap after the run and its peak RSS so far, MB. */
  heapMb: number;
  peakRssMb: number;
  statements?: Statement[];
  error?: string;
}

let db: Database | null = null;

async function runOne(request: RunnerRequest): Promise<RunnerReply> {
  db ??= await openDatabase({ url: request.url, schema: request.schema, poolSize: 4 });
  const statements: Statement[] = [];
  const query = db.pool.query.bind(db.pool) as (...args: unknown[]) => unknown;
  // only while recording: the measured runs do not pay for it
  if (request.record)
    Object.assign(db.pool, {
      query: (...args: unknown[]) => {
        const q = args[0] as Partial<Statement> | null;
        if (typeof q === 'object' && q?.name?.startsWith('ariadne-commit-turn') && q.values)
          statements.push(q as Statement);
        return query(...args);
      },
    });
  try {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const result = await runLocalExperiment(request.input, { db });
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    return {
      seconds,
      nodeCpu: (cpu.user + cpu.system) / 1e6,
      experimentId: result.experimentId!,
      summary: { actions: result.summary!.actions, turns: result.summary!.turns },
      events: result.events,
      heapMb: process.memoryUsage().heapUsed / 2 ** 20,
      peakRssMb: process.resourceUsage().maxRSS / 1024, // KiB -> MiB
      ...(request.record ? { statements } : {}),
    };
  } finally {
    Object.assign(db.pool, { query });
  }
}

if (process.send) {
  process.on('message', (request: RunnerRequest | 'exit') => {
    if (request === 'exit') {
      void (db?.close() ?? Promise.resolve()).then(() => process.exit(0));
      return;
    }
    runOne(request).then(
      (reply) => process.send!(reply),
      (err: unknown) => process.send!({ error: (err as Error).stack ?? String(err) }),
    );
  });
}
