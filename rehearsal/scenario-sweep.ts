// The scenario "sweep": a sweep of 10,000 runs launched as a researcher launches one (the run
// list uploaded to the stack's sweep bucket, the sweep machine started with where it is), run through the
// emulated sweep machine (sweep-machine.ts): RegisterSweep, the ItemReader, 10,000 launches under MaxConcurrency,
// a sample of experiments run to their end, the rest stood in for, the results written. Checked against the
// servers' records, the results in S3 and the database.
import { machineOf, resourcesOfType, type World } from './world.ts';
import { SweepEmulator, sweepMachineOf, type IterationResult } from './sweep-machine.ts';
import { loadSweep, type LoadedSweep } from '../core/sweeps/sweep-spec.ts';
import { sweepLaunch } from '../core/machine/sweep-machine-input.ts';

/** Thrown when the sweep did not do what the scenario checks. */
class SweepScenarioError extends Error {
  override readonly name = 'SweepScenarioError';
}

/** What the sweep scenario does not prove, for the report's notes. */
export const SWEEP_NOTES = [
  "Sweep machine: Distributed Map, ItemReader, ResultWriter and waitForTaskToken emulated from the sweep machine's " +
    'definition (aws-local-stepfunctions lacks them); Retry intervals and TimeoutSeconds are not waited',
  'Sweep: 3 experiments run to the end (one after another: one container per function); the other 9,997 are stood ' +
    "in for: not run, their inputs checked against StartExperiment's schema, their tokens returned with " +
    "FinalizeSuccess's key",
  "Sweep: the run list is put into S3 with the researcher's credentials (no principal of the template: not " +
    'authorized); bucket policies (enforceSSL) are not evaluated, identity policies only',
  'Sweep: lambda:InvokeFunction, the Map Run starting its child workflow executions, Describe/StopExecution and ' +
    "the ResultWriter's multipart actions are authorized without a request (nothing is stopped; no redrive)",
];

const RUNS = 10_000;
const MAX_CONCURRENCY = 200;
/** 2 agents x 2 generators x 2 sizes x 125 seeds = 1,000 cells, 10 repeats each; small mazes, few moves. */
const SWEEP_YAML = `sweep: rehearsal-10k
description: the deploy rehearsal's 10,000-run sweep
agents:
  - { agent: frontier }
  - { agent: random }
mazes:
  generators: [medium, perfect]
  sizes: [5, 7]
  seeds: [${Array.from({ length: 125 }, (_, i) => i + 1).join(', ')}]
config:
  max_moves: 200
repeats: 10
max_concurrency: ${MAX_CONCURRENCY}
`;

const fmt = (n: number) => n.toLocaleString('en-US');

function check(ok: boolean, message: string): void {
  if (!ok) throw new SweepScenarioError(message);
}

/**
 * A sweep launched as a researcher launches one (the run list put into the stack's sweep bucket, the sweep machine
 * started with where it is) and run through the emulated sweep machine; `sample`: the runs run to their end.
 */
export async function emulateSweep(world: World, loaded: LoadedSweep, maxConcurrency: number, sample: Set<number>) {
  const values = world.model.values;
  const bucketResource = resourcesOfType(values.template, 'AWS::S3::Bucket').find(([id]) => id.startsWith('Sweeps'));
  if (!bucketResource) throw new SweepScenarioError('the template has no sweep bucket');
  const bucket = values.resolveString({ Ref: bucketResource[0] }, `$.Resources.${bucketResource[0]}`);
  const launch = sweepLaunch(loaded, bucket, maxConcurrency);
  // The researcher's upload (the CLI, with the researcher's own credentials: no principal of the template).
  world.sims.s3.put(bucket, launch.runsObject.key, Buffer.from(launch.runsObject.body), 'application/json');
  const emulator = new SweepEmulator(world, sweepMachineOf(world));
  try {
    const report = await emulator.run(launch.input, { sample });
    const failed = report.iterations.filter((i) => i.status !== 'SUCCEEDED');
    check(
      failed.length === 0,
      `${failed.length} iterations failed, e.g. ${failed[0]?.name}: ${failed[0]?.error} ${failed[0]?.cause}` +
        (emulator.childErrors.length ? `; ${emulator.childErrors.join('; ')}` : ''),
    );
    return { report, launch, finalizeSuccess: emulator.finalizeSuccessFunction() };
  } finally {
    await emulator.close();
  }
}

export async function sweepScenario(world: World): Promise<string> {
  const loaded = loadSweep(SWEEP_YAML, 'the rehearsal sweep');
  check(loaded.runs.length === RUNS, `the sweep has ${loaded.runs.length} runs, not ${RUNS}`);
  // Experiments run to the end: frontier runs (deterministic, they reach the goal), spread over the list.
  const frontier = loaded.runs.flatMap((r, i) => (r.cell.agent === 'frontier' ? [i] : []));
  const sample = new Set([frontier[0], frontier[Math.floor(frontier.length / 2)], frontier.at(-1)!]);
  const { report, launch, finalizeSuccess } = await emulateSweep(world, loaded, MAX_CONCURRENCY, sample);
  const { iterations } = report;
  check(report.runList.items === RUNS, `the ItemReader read ${report.runList.items} items`);
  check(report.runList.bytes === Buffer.byteLength(launch.runsObject.body), 'the run list read is not the one put');

  // Every launch reached the Step Functions server as the sweep machine, under its own name, once.
  const experiments = machineOf(world).arn;
  const names = new Set(iterations.map((i) => i.name));
  check(names.size === RUNS, `${names.size} distinct child names for ${RUNS} runs`);
  const started = [...world.sims.sfn.executions.values()].filter(
    (e) => e.stateMachineArn === experiments && names.has(e.name),
  );
  check(started.length === RUNS, `${started.length} experiment executions started, not ${RUNS}`);
  check(report.startExecutionCalls === RUNS, `${report.startExecutionCalls} StartExecution calls, not ${RUNS}`);
  const sweepCalls = world.authorizer.counts.get(sweepMachineOf(world).logicalId);
  check(
    sweepCalls?.get('states:StartExecution') === 2 * RUNS,
    `the sweep machine was authorized ${sweepCalls?.get('states:StartExecution')} times for StartExecution ` +
      `(each iteration: its child workflow execution and its experiment), not ${2 * RUNS}`,
  );
  check(
    report.maxInFlight <= report.maxConcurrency,
    `${report.maxInFlight} in flight over MaxConcurrency ${report.maxConcurrency}`,
  );

  // Every token came back, each from the FinalizeSuccess function's key.
  check(world.sims.sfn.openTaskTokens === 0, `${world.sims.sfn.openTaskTokens} task tokens never returned`);
  const otherSender = iterations.find((i) => i.tokenSender !== finalizeSuccess);
  check(!otherSender, `${otherSender?.name}'s token came from ${otherSender?.tokenSender ?? 'nobody'}`);

  checkResults(world, report.results, iterations);
  const sampled = iterations.filter((i) => i.sampled);
  await checkDatabase(world, loaded.spec.sweep, loaded.cells.length, sampled);
  const results = `s3://${report.results.bucket}/${report.results.manifestKey.replace(/manifest\.json$/, '')}`;
  return (
    `${fmt(RUNS)} runs: run list read from S3 (${fmt(report.runList.bytes)} bytes), ${fmt(started.length)} ` +
    `launched, at most ${report.maxInFlight} of ${report.maxConcurrency} in flight, ${sampled.length} run to the ` +
    `goal, ${fmt(RUNS - sampled.length)} stood in for (tokens returned by FinalizeSuccess's key), results ` +
    `written to ${results}`
  );
}

/** The ResultWriter's files: the manifest names them, every iteration's output is on its line. */
function checkResults(
  world: World,
  results: { bucket: string; manifestKey: string; files: Array<{ key: string; status: string; lines: number }> },
  iterations: IterationResult[],
): void {
  const read = (key: string) => world.sims.s3.objects.get(`${results.bucket}/${key}`)?.body;
  const manifestText = read(results.manifestKey);
  if (!manifestText) throw new SweepScenarioError(`no manifest at ${results.manifestKey}`);
  const manifest = JSON.parse(manifestText) as {
    DestinationBucket: string;
    ResultFiles: Record<string, Array<{ Key: string; Size: number }>>;
  };
  check(manifest.DestinationBucket === results.bucket, `the manifest names bucket ${manifest.DestinationBucket}`);
  check(
    manifest.ResultFiles.FAILED.length === 0 && manifest.ResultFiles.PENDING.length === 0,
    'the manifest lists failed or pending results',
  );
  const lines = manifest.ResultFiles.SUCCEEDED.flatMap((f) => {
    const text = read(f.Key);
    check(text !== undefined && Buffer.byteLength(text) === f.Size, `${f.Key}: missing or not ${f.Size} bytes`);
    return text!.trimEnd().split('\n');
  });
  check(lines.length === iterations.length, `${lines.length} result lines for ${iterations.length} iterations`);
  iterations.forEach((it, i) => {
    const line = JSON.parse(lines[i]) as { experimentId?: string; status?: string };
    check(
      JSON.stringify(line) === JSON.stringify(it.output),
      `result line ${i} is ${lines[i]}, not the output of ${it.name}`,
    );
    const expected = it.sampled ? 'completed' : 'stood_in';
    check(line.experimentId === it.name && line.status === expected, `result line ${i}: ${lines[i]}`);
  });
}

/** The sweep, its cells and the sampled experiments in the database. */
async function checkDatabase(world: World, sweep: string, cells: number, sampled: IterationResult[]): Promise<void> {
  const pool = world.db.pool;
  const { rows: sweeps } = await pool.query<{ cells: number; repeats: number; n: number }>(
    'SELECT s.cells, s.repeats, (SELECT count(*)::int FROM sweep_cells c WHERE c.sweep_id = s.id) AS n ' +
      'FROM sweeps s WHERE s.id = $1',
    [sweep],
  );
  check(sweeps.length === 1, `sweep ${sweep} is not in the database`);
  check(
    sweeps[0].cells === cells && sweeps[0].n === cells && sweeps[0].cells * sweeps[0].repeats === RUNS,
    `sweep ${sweep}: ${sweeps[0].n} cells stored of ${sweeps[0].cells} x ${sweeps[0].repeats} repeats`,
  );
  for (const it of sampled) {
    const input = it.input as { input: { sweep: { cell: number; repeat: number } } };
    const { rows } = await pool.query<{
      status: string;
      goal_found: boolean;
      sweep_cell: number;
      sweep_repeat: number;
    }>('SELECT status, goal_found, sweep_cell, sweep_repeat FROM experiments WHERE id = $1 AND sweep_id = $2', [
      it.name,
      sweep,
    ]);
    const row = rows[0];
    check(row?.status === 'completed' && row.goal_found, `${it.name}: ${row?.status ?? 'not in the database'}`);
    check(
      row.sweep_cell === input.input.sweep.cell && row.sweep_repeat === input.input.sweep.repeat,
      `${it.name}: recorded as cell ${row.sweep_cell} repeat ${row.sweep_repeat}`,
    );
  }
}
