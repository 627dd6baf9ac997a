// The claim: exporting a sweep of 1,000,000 action rows completes over the RDS Data API
// (aws-facts: data-api.max-response-bytes, so reads are paged) in memory that does not grow with the rows. Sweeps of
// BENCH_ACTIONS actions and a tenth of that are exported as `ariadne export` does, in each format over pg and over the
// Data API simulator, each export in a child process so its peak RSS is its own. Printed: time, rows/s, calls, pages
// read again halved, bytes, CPU and peak memory, and the large size's peaks over the small's. Nothing is asserted.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { openDatabase, type Database } from '../core/store/database.ts';
import { DataApiDatabase } from '../core/store/data-api-sql.ts';
import { ResultTooLargeError, type Sql, type SqlDatabase, type SqlValue } from '../core/store/sql.ts';
import { exportSweep, type ExportFormat } from '../reports/export.ts';
import { RdsDataSim } from '../simulators/rds-data-sim.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { benchPostgres, fmt } from './support.ts';
import { recordFigure } from './figures.ts';
import { freshBenchDatabase, seedSweep } from './seed-sweep.ts';
import { envInteger, envString } from '../core/config/environment.ts';

const SCHEMA = 'bench_results_aws';
const ACTIONS_PER_RUN = 10_000; // a multiple of the 10 actions a turn written below
const FORMATS: ExportFormat[] = ['csv', 'jsonl', 'parquet'];
const TRANSPORTS = ['pg', 'data-api'] as const;
type Transport = (typeof TRANSPORTS)[number];
// By URL, as test/support/cli.ts does: the child is plain node with tsx as its loader.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** What a child is told: where to read, and what to write where. */
interface ChildJob {
  transport: Transport;
  url: string;
  endpoint: string;
  clusterArn: string;
  secretArn: string;
  database: string;
  sweep: string;
  format: ExportFormat;
  dir: string;
}

/** What a child answers. */
interface ChildResult {
  seconds: number;
  files: Array<{ file: string; rows: number }>;
  /** Statements the export sent (the counts, then one per page). */
  reads: number;
  /** Of those, pages over 1 MiB (ResultTooLargeError), read again with half the rows. */
  tooLarge: number;
  /** VmRSS once the transport is open, before the export: Node, tsx and the modules. */
  rssBeforeMb: number;
  /** VmHWM at the end: the process's peak resident set. */
  peakRssMb: number;
  /** heapUsed sampled every 10 ms during the export. */
  peakHeapMb: number;
  /** heapUsed just after each full (mark-compact) GC, the largest: about what was live, not garbage. */
  liveHeapMb: number | null;
  fullGcs: number;
  /** CPU (user + system) of the export process during the export. */
  cpuSeconds: number;
}

interface Measured extends ChildResult {
  size: number;
  transport: Transport;
  format: ExportFormat;
  calls: number | null;
  bytes: number;
}

const statusMb = (field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN) / 1024;

/** In the child: one export, measured. */
async function runChild(job: ChildJob): Promise<void> {
  let db: SqlDatabase;
  if (job.transport === 'pg') db = await openDatabase({ url: job.url, schema: SCHEMA, poolSize: 1, migrate: false });
  else
    db = new DataApiDatabase({
      resourceArn: job.clusterArn,
      secretArn: job.secretArn,
      database: job.database,
      client: new RDSDataClient({
        endpoint: job.endpoint,
        region: 'eu-west-1',
        credentials: { accessKeyId: 'AKIDBENCH', secretAccessKey: 'bench-secret' },
      }),
    });
  await db.query('SELECT 1'); // the connection (or the SDK's first request) is not the export's
  const rssBeforeMb = statusMb('VmRSS');
  let peakHeap = process.memoryUsage().heapUsed;
  const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 10);
  // A peak of heapUsed may be garbage not yet collected; what a full GC leaves is what the export holds on to.
  let liveHeap: number | null = null;
  let fullGcs = 0;
  const gcs = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        fullGcs++;
        liveHeap = Math.max(liveHeap ?? 0, process.memoryUsage().heapUsed);
      }
  });
  gcs.observe({ entryTypes: ['gc'] });
  const cpu0 = process.cpuUsage();
  let reads = 0;
  let tooLarge = 0;
  const counting: Sql = {
    async query<R extends object>(text: string, values?: readonly SqlValue[]) {
      reads++;
      try {
        return await db.query<R>(text, values);
      } catch (err) {
        if (err instanceof ResultTooLargeError) tooLarge++;
        throw err;
      }
    },
  };
  const started = process.hrtime.bigint();
  const files = await exportSweep(counting, job.sweep, job.format, job.dir);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  gcs.disconnect();
  await db.close();
  const result: ChildResult = {
    seconds,
    files,
    reads,
    tooLarge,
    rssBeforeMb,
    peakRssMb: statusMb('VmHWM'),
    peakHeapMb: Math.max(peakHeap, process.memoryUsage().heapUsed) / 2 ** 20,
    liveHeapMb: liveHeap === null ? null : liveHeap / 2 ** 20,
    fullGcs,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
  process.stdout.write(JSON.stringify(result));
}

/** In the parent: one export in a child process; its stderr is shown if it fails. */
function inChild(job: ChildJob): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, fileURLToPath(import.meta.url)], {
      env: { ...process.env, BENCH_RESULTS_AWS_CHILD: JSON.stringify(job) },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      if (code === 0) resolve(JSON.parse(out) as ChildResult);
      else reject(new Error(`export child (${job.transport}, ${job.format}) exited ${code}: ${err}`));
    });
  });
}

/** The rows the tables hold for a sweep, counted without the views the export reads. */
async function tableCounts(db: Database, sweep: string): Promise<{ experiments: number; actions: number }> {
  const { rows } = await db.pool.query<{ experiments: number; actions: number }>(
    `SELECT (SELECT count(*) FROM experiments WHERE sweep_id = $1)::int AS experiments,
       (SELECT count(*) FROM actions a JOIN experiments e ON e.id = a.experiment_id WHERE e.sweep_id = $1)::int
       AS actions`,
    [sweep],
  );
  return rows[0];
}

export async function resultsAwsBench(): Promise<void> {
  const large = envInteger('BENCH_ACTIONS', process.env, 1) ?? 1_000_000;
  const sizes = [Math.max(ACTIONS_PER_RUN, Math.round(large / 10)), large];
  const pgServer = await benchPostgres();
  const db = await freshBenchDatabase(pgServer.url, SCHEMA, 2);
  const sim = new RdsDataSim({ url: pgServer.url, schema: SCHEMA }); // no authorizer: IAM is not measured here
  const dir = mkdtempSync(join(tmpdir(), 'ariadne-results-aws-bench-'));
  try {
    const endpoint = await sim.listen();
    const { experimentId } = await runLocalExperiment(
      { agent: 'random', agentSeed: 1, maze: { generator: 'perfect', size: 11, seed: 1 }, config: { max_moves: 20 } },
      { db },
    );
    const seedStarted = performance.now();
    for (const size of sizes) await seedSweep(db, `bench-${size}`, size, ACTIONS_PER_RUN, experimentId!);
    await db.pool.query('ANALYZE');
    console.log(
      `results over AWS: export (csv, jsonl, parquet) of a sweep of ${fmt(sizes[0])} and of ${fmt(sizes[1])} ` +
        `action rows (runs of ${fmt(ACTIONS_PER_RUN)}), over pg and over the Data API (its simulator, 1 MiB an ` +
        `answer); seeded in ${fmt((performance.now() - seedStarted) / 1000, 1)} s`,
    );
    console.log(
      '  each export in a child process of its own: peak RSS is its VmHWM (Node, tsx and modules included, ' +
        `Postgres and the simulator not); load average ${fmt(loadavg()[0], 1)} on ${availableParallelism()} cores ` +
        'before the first (times are wall-clock: other work on the machine stretches them)',
    );
    const measured: Measured[] = [];
    for (const size of sizes) {
      const sweep = `bench-${size}`;
      const inDb = await tableCounts(db, sweep);
      for (const transport of TRANSPORTS)
        for (const format of FORMATS) {
          const calls0 = sim.requests.length;
          // This process does nothing else meanwhile: its CPU is the simulator's. Postgres's is not shown: a backend
          // that has exited is gone from /proc with its CPU time, so a sum over its processes is not a count.
          const simCpu0 = process.cpuUsage();
          const out = join(dir, `${size}-${transport}-${format}`);
          const r = await inChild({
            transport,
            url: pgServer.url,
            endpoint,
            clusterArn: sim.clusterArn,
            secretArn: sim.secretArn,
            database: sim.database,
            sweep,
            format,
            dir: out,
          });
          const simCpu = process.cpuUsage(simCpu0);
          const m: Measured = {
            ...r,
            size,
            transport,
            format,
            calls: transport === 'data-api' ? sim.requests.length - calls0 - 1 : null, // less the child's SELECT 1
            bytes: r.files.reduce((n, f) => n + statSync(f.file).size, 0),
          };
          rmSync(out, { recursive: true, force: true }); // a 1M-row csv is ~100 MB: one set on disk at a time
          measured.push(m);
          const [experiments, actions] = r.files.map((f) => f.rows);
          const rows = experiments + actions;
          const calls =
            m.calls === null ? '' : ` = ${fmt(m.calls)} Data API calls (${fmt(r.tooLarge)} over 1 MiB, halved)`;
          const cpu =
            `CPU: export ${fmt(r.cpuSeconds, 1)} s` +
            (transport === 'data-api' ? `, simulator ${fmt((simCpu.user + simCpu.system) / 1e6, 1)} s` : '');
          console.log(
            `  ${fmt(size).padStart(9)} ${transport.padEnd(8)} ${format.padEnd(7)} ${fmt(r.seconds, 1)} s, ` +
              `${fmt(rows / r.seconds)} rows/s, ${fmt(r.reads)} reads${calls}, ${fmt(m.bytes / 1e6, 1)} MB ` +
              `written; ${cpu}`,
          );
          const live = r.liveHeapMb === null ? 'no full GC' : `${fmt(r.liveHeapMb)} MB after ${r.fullGcs} full GCs`;
          console.log(
            `     peak RSS ${fmt(r.peakRssMb)} MB (${fmt(r.rssBeforeMb)} MB before the export), peak heap ` +
              `${fmt(r.peakHeapMb)} MB, live heap ${live}; ` +
              (experiments === inDb.experiments && actions === inDb.actions
                ? `rows ${fmt(actions)} actions + ${fmt(experiments)} runs, as the tables hold`
                : `!!! MISMATCH: exported ${fmt(actions)} actions and ${fmt(experiments)} runs, the tables hold ` +
                  `${fmt(inDb.actions)} and ${fmt(inDb.experiments)} !!!`),
          );
        }
    }
    console.log(`  ${fmt(sizes[1])} rows against ${fmt(sizes[0])} (${fmt(sizes[1] / sizes[0])}x the rows):`);
    const mb = (big: number | null, small: number | null) =>
      big === null || small === null ? 'n/a' : `${fmt(big)} / ${fmt(small)} MB = ${fmt(big / small, 2)}x`;
    for (const transport of TRANSPORTS)
      for (const format of FORMATS) {
        const [small, big] = sizes.map((size) =>
          measured.find((m) => m.size === size && m.transport === transport && m.format === format)!,
        );
        const pg = measured.find((m) => m.size === big.size && m.transport === 'pg' && m.format === format)!;
        if (transport === 'data-api')
          recordFigure({
            what: `${format} export of ${fmt(big.size)} actions, Data API time / pg time`,
            measured: big.seconds / pg.seconds,
            target: 2,
            unit: 'x',
          });
        console.log(
          `  ${transport.padEnd(8)} ${format.padEnd(7)} peak RSS ${mb(big.peakRssMb, small.peakRssMb)} ` +
            `(above the start ${fmt(big.peakRssMb - big.rssBeforeMb)} / ${fmt(small.peakRssMb - small.rssBeforeMb)} ` +
            `MB); peak heap ${mb(big.peakHeapMb, small.peakHeapMb)}; ` +
            `live heap ${mb(big.liveHeapMb, small.liveHeapMb)}; time ${fmt(big.seconds / small.seconds, 1)}x` +
            (transport === 'data-api'
              ? `; Data API ${fmt(big.seconds, 1)} s / pg ${fmt(pg.seconds, 1)} s = ` +
                `${fmt(big.seconds / pg.seconds, 2)}x, target 2x: ${fmt(big.seconds / pg.seconds / 2, 2)} of it`
              : ''),
        );
      }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await sim.close();
    await db.close();
    await pgServer.stop();
  }
}

const job = envString('BENCH_RESULTS_AWS_CHILD');
if (job) await runChild(JSON.parse(job) as ChildJob);
else if (process.argv[1] === fileURLToPath(import.meta.url)) await resultsAwsBench();
