// A sweep (or one run) as Inspect AI eval logs for `inspect view`: a log per agent and settings (Inspect's eval is
// one task on one model), its runs the samples, as .json (the header before the samples, as Inspect's header reader
// needs) or .eval (a ZIP: header.json, summaries.json, samples/<id>_epoch_<n>.json, _journal/start.json). Samples
// are written as the runs are read, so a sweep never sits in memory. Results are over the runs the statistics
// count, their standard errors over mazes (repeats on one maze are not independent draws).
import { createReadStream, createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { Sql } from '../core/store/sql.ts';
import { canonicalJson } from '../core/providers/llm/model-request.ts';
import {
  exportedRun,
  exportedSweep,
  fromCache,
  recordedExchanges,
  runsOfSource,
  runTimeline,
  runUsage,
  sourceRunCount,
  type ExportedRun,
  type ExportSource,
} from '../results/run-export.ts';
import { inspectSample, modelNameOf, sampleSummary } from './inspect-log.ts';
import type { InspectUsage, RunDetail } from './inspect-log.ts';
import { clusterStandardError } from './maze-inference.ts';
import type { ClusterSums } from './bootstrap.ts';
import { readAhead } from '../core/store/pages.ts';
import { ZipWriter } from './zip-writer.ts';
import type { RunProgress } from './otlp-traces.ts';
import { ARIADNE_VERSION } from './package-version.ts';

export type InspectFormat = 'json' | 'eval';

const hash = (text: string, chars: number) => createHash('sha256').update(text).digest('hex').slice(0, chars);

/** Inspect's file-name component: no _, /, : or + (inspect_ai._util.file.clean_filename_component). */
const clean = (s: string) => s.replace(/[_/:+]/g, '-');

/** What a log says of its runs beside their samples: how many a simulator answered, the cache, and so on. */
interface Provenance {
  simulated_runs: number;
  cached_runs: number;
  replays: number;
  forks: number;
  wall_clock_runs: number;
  error_runs: number;
  prompt_truncated_calls: number;
  abandoned_calls: number;
  /** Runs the results leave out: errors, wall-clock stops, running, cache-answered, copies of a run in this log. */
  not_counted: number;
}

/** The observation a run is: its own, or the deterministic run it repeats exactly (sweep_runs' duplicate_of). */
const observationOf = (run: ExportedRun): string => run.duplicate_of ?? run.experiment_id;

/**
 * Counted as the statistics count a run: a success or failure (not an error, a wall-clock stop or a run still
 * running), not answered by the cache, and an observation not yet in this log (a deterministic run's copies once).
 */
const countedIn = (run: ExportedRun, observations: ReadonlySet<string>): boolean =>
  (run.outcome_class === 'success' || run.outcome_class === 'failure') &&
  !fromCache(run) &&
  !observations.has(observationOf(run));

/** One eval log: the runs of one agent label and settings, and what its header sums over them. */
class LogFile {
  readonly ids = new Set<string>();
  readonly observations = new Set<string>();
  samples = 0;
  scored = 0;
  errors = 0;
  firstError: string | null = null;
  running = false;
  started: Date | null = null;
  completed: Date | null = null;
  readonly usage: Record<string, InspectUsage> = {};
  /** Per score, per maze: the counted runs' sum and count. */
  readonly tallies = new Map<string, Map<string, ClusterSums>>();
  readonly provenance: Provenance = {
    simulated_runs: 0,
    cached_runs: 0,
    replays: 0,
    forks: 0,
    wall_clock_runs: 0,
    error_runs: 0,
    prompt_truncated_calls: 0,
    abandoned_calls: 0,
    not_counted: 0,
  };
  readonly summaries: Array<Record<string, unknown>> = [];
  private readonly json: ReturnType<typeof createWriteStream> | null;
  private readonly zip: ZipWriter | null;

  constructor(
    readonly path: string,
    readonly format: InspectFormat,
    readonly first: ExportedRun,
    created: Date,
  ) {
    this.json = format === 'json' ? createWriteStream(`${path}.samples`) : null;
    this.zip = format === 'eval' ? new ZipWriter(path, created) : null;
  }

  async add(run: ExportedRun, sample: Record<string, unknown>): Promise<void> {
    this.ids.add(sample.id as string);
    this.samples++;
    if (run.outcome_class === 'running') this.running = true;
    if (!this.started || run.started_at < this.started) this.started = run.started_at;
    if (run.completed_at && (!this.completed || run.completed_at > this.completed)) this.completed = run.completed_at;
    const scores = sample.scores as Record<string, { value: number }> | null;
    if (scores) this.scored++;
    if (countedIn(run, this.observations)) {
      this.tally(sample.id as string, scores ?? {});
      this.observations.add(observationOf(run));
    } else this.provenance.not_counted++;
    this.note(run, sample);
    for (const [model, u] of Object.entries(sample.model_usage as Record<string, InspectUsage>))
      addUsage(this.usage, model, u);
    const text = JSON.stringify(sample);
    if (this.zip) {
      await this.zip.add(`samples/${sample.id as string}_epoch_${sample.epoch as number}.json`, text);
      this.summaries.push(sampleSummary(sample));
    } else if (!this.json!.write(`${this.samples > 1 ? ',' : ''}${text}`)) await once(this.json!, 'drain');
  }

  private tally(maze: string, scores: Record<string, { value: number }>): void {
    for (const [name, s] of Object.entries(scores)) {
      const mazes = this.tallies.get(name) ?? new Map<string, ClusterSums>();
      const t = mazes.get(maze) ?? { num: 0, den: 0 };
      mazes.set(maze, { num: t.num + s.value, den: t.den + 1 });
      this.tallies.set(name, mazes);
    }
  }

  private note(run: ExportedRun, sample: Record<string, unknown>): void {
    const p = this.provenance;
    if (run.simulated) p.simulated_runs++;
    if (fromCache(run)) p.cached_runs++;
    if (run.replay_of !== null) p.replays++;
    if (run.forked_from !== null) p.forks++;
    if (run.outcome_class === 'wall_clock') p.wall_clock_runs++;
    if (run.outcome_class === 'error') p.error_runs++;
    p.prompt_truncated_calls += run.prompt_truncated_calls;
    p.abandoned_calls += run.abandoned_calls;
    const error = sample.error as { message: string } | null;
    if (error) this.errors++;
    this.firstError ??= error?.message ?? null;
  }

  /** Writes the header (and, for .json, the samples after it). */
  async finish(header: Record<string, unknown>): Promise<void> {
    if (this.zip) {
      const { version, eval: spec, plan } = header;
      await this.zip.add('_journal/start.json', JSON.stringify({ version, eval: spec, plan }));
      await this.zip.add('summaries.json', JSON.stringify(this.summaries));
      await this.zip.add('header.json', JSON.stringify(header));
      await this.zip.close();
      return;
    }
    this.json!.end();
    await once(this.json!, 'finish');
    const out = createWriteStream(this.path);
    out.write(`${JSON.stringify(header).slice(0, -1)},"samples":[`);
    for await (const chunk of createReadStream(`${this.path}.samples`)) if (!out.write(chunk)) await once(out, 'drain');
    out.end(']}');
    await once(out, 'finish');
    rmSync(`${this.path}.samples`);
  }
}

function addUsage(into: Record<string, InspectUsage>, model: string, u: InspectUsage): void {
  const t = into[model];
  const add = (a: number | null, b: number | null) => (a === null && b === null ? null : (a ?? 0) + (b ?? 0));
  into[model] = !t
    ? { ...u }
    : {
        input_tokens: t.input_tokens + u.input_tokens,
        output_tokens: t.output_tokens + u.output_tokens,
        total_tokens: t.total_tokens + u.total_tokens,
        input_tokens_cache_read: add(t.input_tokens_cache_read, u.input_tokens_cache_read),
        input_tokens_cache_write: add(t.input_tokens_cache_write, u.input_tokens_cache_write),
        reasoning_tokens: add(t.reasoning_tokens, u.reasoning_tokens),
        // an unknown cost leaves the total unknown, never $0
        total_cost: t.total_cost === null || u.total_cost === null ? null : t.total_cost + u.total_cost,
      };
}

/** The sampling settings as configured (config.temperature, top_p, max_output_tokens), as Inspect's GenerateConfig. */
function generateConfig(config: Record<string, unknown>): Record<string, number> {
  const pick = [
    ['temperature', 'temperature'],
    ['top_p', 'top_p'],
    ['max_output_tokens', 'max_tokens'],
  ] as const;
  return Object.fromEntries(
    pick.flatMap(([from, to]) => (typeof config[from] === 'number' ? [[to, config[from]]] : [])),
  );
}

/** What the results' metrics are over, for the log's reader (EvalScore.metadata). */
const OVER =
  'runs as the statistics count them: successes and failures, not errors, wall-clock stops, runs still running, ' +
  'runs the cache answered, nor copies of a deterministic run already in this log; the standard error is ' +
  'over mazes (cluster-robust: repeats on one maze are not independent), none below two mazes';

/** Per score: the mean over the counted runs (success's as Inspect's accuracy) and its standard error over mazes. */
function resultsOf(log: LogFile) {
  const scores = [...log.tallies].flatMap(([name, mazes]) => {
    const r = clusterStandardError([...mazes.values()]);
    if (!r) return [];
    const mean = { name: name === 'success' ? 'accuracy' : 'mean', value: r.value, params: {} };
    const stderr = { name: 'stderr', value: r.stderr, params: {}, metadata: { over: 'mazes', mazes: r.mazes } };
    return [
      {
        name,
        scorer: name,
        reducer: null,
        scored_samples: r.n,
        unscored_samples: log.samples - r.n,
        params: {},
        metrics: { [mean.name]: mean, ...(r.stderr === null ? {} : { stderr }) },
        metadata: { over: OVER, runs: r.n, mazes: r.mazes },
      },
    ];
  });
  return { total_samples: log.samples, completed_samples: log.scored, scores };
}

const NO_TRACE = { traceback: '', traceback_ansi: '' };

/** Tags the log list shows: runs a bundled simulator or the cache answered, replays and forks. */
const tagsOf = (p: Provenance): string[] =>
  [
    ['simulated', p.simulated_runs],
    ['cached', p.cached_runs],
    ['replay', p.replays],
    ['fork', p.forks],
  ].flatMap(([tag, n]) => (n === 0 ? [] : [tag as string]));

interface Task {
  name: string;
  created: Date;
  repeats: number;
  suite: string | null;
  description: string | null;
  runId: string;
}

/** The log's header (EvalLog without its samples): the eval's spec, plan, results and stats. */
function header(log: LogFile, task: Task, displayName: string): Record<string, unknown> {
  const r = log.first;
  const { prices: _prices, ...config } = r.config;
  const gen = generateConfig(r.config);
  const taskId = hash(`${task.runId}/${r.label}/${canonicalJson(r.settings)}`, 22);
  const failed = !log.running && log.samples > 0 && log.errors === log.samples;
  return {
    version: 2,
    // every run ended by an error: the eval failed, as Inspect says of one (each sample keeps its own error)
    status: log.running ? 'started' : failed ? 'error' : 'success',
    eval: {
      eval_id: hash(`eval/${taskId}`, 22),
      run_id: task.runId,
      created: task.created.toISOString(),
      task: task.name,
      task_id: taskId,
      task_version: 0,
      task_display_name: displayName,
      task_attribs: {},
      task_args: r.settings,
      task_args_passed: r.settings,
      solver: r.agent,
      solver_args: { label: r.label, prompt_version: r.prompt_version },
      dataset: {
        name: task.suite ?? 'ariadne mazes',
        samples: log.ids.size,
        sample_ids: [...log.ids],
        shuffled: false,
      },
      model: modelNameOf(r),
      model_generate_config: gen,
      model_args: {},
      config: { epochs: task.repeats },
      packages: { ariadne: ARIADNE_VERSION },
      metadata: {
        ariadne: {
          sweep: r.sweep_id,
          description: task.description,
          label: r.label,
          agent: r.agent,
          provider: r.provider,
          model: r.model,
          ...log.provenance,
        },
      },
    },
    plan: {
      name: 'plan',
      steps: [{ solver: r.agent, params: config, params_passed: r.settings }],
      config: gen,
    },
    results: log.scored > 0 ? resultsOf(log) : null,
    stats: {
      started_at: log.started?.toISOString() ?? '',
      completed_at: log.running ? '' : (log.completed?.toISOString() ?? ''),
      model_usage: log.usage,
      role_usage: {},
      connection_limit_history: [],
    },
    ...(failed ? { error: { message: `every run ended by an error; the first: ${log.firstError}`, ...NO_TRACE } } : {}),
    invalidated: false,
    tags: tagsOf(log.provenance),
    metadata: {},
  };
}

async function taskOf(db: Sql, source: ExportSource): Promise<Task> {
  if ('sweep' in source) {
    const s = (await exportedSweep(db, source.sweep))!;
    const runId = hash(`sweep/${s.id}`, 22);
    return { name: s.id, created: s.created_at, repeats: s.repeats, suite: s.suite, description: s.description, runId };
  }
  const run = (await exportedRun(db, source.run))!;
  const sweep = run.sweep_id === null ? null : await exportedSweep(db, run.sweep_id);
  return {
    name: run.sweep_id ?? `run-${run.experiment_id}`,
    created: run.started_at,
    repeats: sweep?.repeats ?? 1,
    suite: sweep?.suite ?? null,
    description: sweep?.description ?? null,
    runId: hash(`run/${run.experiment_id}`, 22),
  };
}

/** Each run of `source` with what its sample is made of: its turns, calls and actions, usage and record. */
async function* detailsOf(db: Sql, source: ExportSource): AsyncIterable<RunDetail> {
  for await (const page of runsOfSource(db, source))
    for (const run of page) {
      const [timeline, usage, record] = await Promise.all([
        runTimeline(db, run.experiment_id),
        runUsage(db, run.experiment_id),
        recordedExchanges(db, run.experiment_id),
      ]);
      yield { run, timeline, usage, record };
    }
}

/** The logs of a sweep or a run in `dir`, one per agent label and settings; each file with its samples. */
export async function writeInspectLogs(
  db: Sql,
  source: ExportSource,
  format: InspectFormat,
  dir: string,
  onProgress?: (p: RunProgress) => void,
): Promise<Array<{ file: string; rows: number }>> {
  mkdirSync(dir, { recursive: true });
  const task = await taskOf(db, source);
  const total = await sourceRunCount(db, source);
  const stamp = task.created.toISOString().replace(/\.\d+Z$/, '+00:00');
  const logs = new Map<string, LogFile>();
  let done = 0;
  // each run's details read while the one before it is written
  for await (const detail of readAhead(detailsOf(db, source))) {
    const { run } = detail;
    const key = `${run.label}\n${canonicalJson(run.settings)}`;
    let log = logs.get(key);
    if (!log) {
      const id = hash(`${task.runId}/${run.label}/${canonicalJson(run.settings)}`, 22);
      const path = join(dir, `${clean(stamp)}_${clean(task.name)}_${clean(id)}.${format}`);
      logs.set(key, (log = new LogFile(path, format, run, task.created)));
    }
    await log.add(run, inspectSample(detail));
    onProgress?.({ table: 'runs', rows: ++done, total });
  }
  const out: Array<{ file: string; rows: number }> = [];
  for (const log of logs.values()) {
    const settings = Object.entries(log.first.settings).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    const name = logs.size === 1 ? task.name : `${task.name}: ${[log.first.label, ...settings].join(' ')}`;
    await log.finish(header(log, task, name));
    out.push({ file: log.path, rows: log.samples });
  }
  return out;
}
