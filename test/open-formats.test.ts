// The open formats of `ariadne export`: a sweep and one run as Inspect AI eval logs (.json and .eval), checked against
// Inspect's own schema (test/support/inspect-schema.ts) and the layout its readers expect, and as OpenTelemetry GenAI
// spans in OTLP JSON, checked against the JSON encoding's rules and decoded by OpenTelemetry's generated protobuf
// code; every token, score and cost against the database, the standard errors over mazes; what a simulator, a
// replay, a failed turn or a limit did, shown; the same bytes over pg and the Data API; and the CLI.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportOpen, exportSweep } from '../reports/export.ts';
import { carriedOver } from '../reports/inspect-messages.ts';
import type { SqlDatabase } from '../core/store/sql.ts';
import { overDataApi, type RdsDataSim } from '../simulators/rds-data-sim.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';
import { bedrockRunner, providerSims } from './support/provider-sims.ts';
import { runModelSweep } from './support/model-sweep.ts';
import { inspectSchema, type Validate } from './support/inspect-schema.ts';
import { inspectShape } from './support/inspect-log-shape.ts';
import { cli } from './support/cli.ts';
import { FAST_RETRY } from './support/provider-sims.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import type { Fault } from '../simulators/sim-server.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { STATES } from '../core/machine/states.ts';

const sims = providerSims();
let db: TestDatabase;
let sim: RdsDataSim;
let api: SqlDatabase;
let bedrockRun = '';
const dir = tempDir('open-formats');
const SWEEP = 'formats';
const MAZE = { generator: 'medium', size: 11, seed: 3 };
/** Baselines on three mazes, two repeats: frontier's repeats are copies, random's are not. */
const SPREAD = 'spread';

/** Answers `limit` chat calls, then fails each with a 400: the calls of the failed turn are abandoned. */
class AnswersThenFails extends OllamaSim {
  limit = Infinity;
  protected override nextFault(): Fault | null {
    return this.replies.length >= this.limit ? { kind: 'status', status: 400 } : super.nextFault();
  }
}
const failing = new AnswersThenFails({ models: ['abandon:1b'] });
let abandonedRun = '';

/** A run whose first turn's model answers 3 calls and then fails: an error, its 3 calls abandoned. */
async function runAbandoning(): Promise<string> {
  failing.limit = 3;
  const host = await failing.listen();
  const run = runLocalExperiment(
    {
      agent: 'ollama',
      model: 'abandon:1b',
      maze: MAZE,
      config: { ollama: { host }, retry: FAST_RETRY, max_actions_per_turn: 30, max_moves: 30 },
    },
    { db, retryIntervals: { [STATES.InvokeOllamaAgent]: 0 } },
  );
  return run.then(
    () => expect.unreachable('the run fails'),
    (e: { experimentId: string }) => e.experimentId,
  );
}

async function runSpread(): Promise<void> {
  const spec = `sweep: ${SPREAD}
agents: [{ agent: frontier }, { agent: random }]
mazes: { generators: [medium], sizes: [7], seeds: [1, 2, 3] }
config: { max_moves: 30 }
repeats: 2
`;
  await runLocalSweep(loadSweep(spec, 'test'), { db, concurrency: 2 });
}

beforeAll(async () => {
  db = await testDatabase();
  const over = await overDataApi(db, { url: db.url });
  sim = over.sim;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- overDataApi binds them to its DataApiDatabase
  api = { query: over.query, transaction: over.transaction, transport: over.transport, close: async () => {} };
  await runModelSweep(db, SWEEP, sims.ollamaUrl);
  // a priced model with prompt caching asked for, its conversation carried from turn to turn
  const bedrock = bedrockRunner(sims, () => db, MAZE);
  const config = { max_moves: 30, memory: 'conversation' };
  bedrockRun = (await bedrock('us.anthropic.claude-sonnet-4-6', config, { prompt_caching: true })).experimentId!;
  abandonedRun = await runAbandoning();
  await runSpread();
}, 300_000);
afterAll(async () => {
  await failing.close();
  await sim?.close();
  await db?.drop();
});

// Inspect's required fields always (inspect-log-shape.ts); its whole schema too where a pinned copy is at hand
const schema = inspectSchema();
const validate =
  (type: string): Validate =>
  (value) => [...inspectShape(type)(value), ...('validator' in schema ? schema.validator(type)(value) : [])];
const schemaNote = 'missing' in schema ? " (Inspect's required fields; its whole schema is not at hand)" : '';

type Json = Record<string, any>; // parsed files

/** The entries of a ZIP file by name, each inflated (read from its central directory, as Inspect's readers do). */
function unzip(file: string): Map<string, string> {
  const b = readFileSync(file);
  const end = b.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const [count, start] = [b.readUInt16LE(end + 10), b.readUInt32LE(end + 16)];
  const out = new Map<string, string>();
  for (let i = 0, at = start; i < count; i++) {
    expect(b.readUInt32LE(at)).toBe(0x02014b50);
    const [method, size, nameLength] = [b.readUInt16LE(at + 10), b.readUInt32LE(at + 20), b.readUInt16LE(at + 28)];
    const name = b.toString('utf8', at + 46, at + 46 + nameLength);
    const local = b.readUInt32LE(at + 42);
    const dataStart = local + 30 + b.readUInt16LE(local + 26) + b.readUInt16LE(local + 28);
    expect(method).toBe(8);
    out.set(name, inflateRawSync(b.subarray(dataStart, dataStart + size)).toString('utf8'));
    at += 46 + nameLength + b.readUInt16LE(at + 30) + b.readUInt16LE(at + 32);
  }
  return out;
}

async function dbRuns(sweep: string) {
  const { rows } = await db.pool.query(
    `SELECT r.experiment_id, r.label, r.repeat, r.goal_found, r.actions, r.efficiency::float8 AS efficiency,
       r.outcome_class, r.stop_reason, r.maze_seed, e.simulated, s.input_tokens::float8 AS input_tokens,
       s.output_tokens::float8 AS output_tokens, s.cost_usd::float8 AS cost_usd, s.llm_calls::int AS llm_calls
     FROM sweep_runs r JOIN experiment_summary s USING (experiment_id) JOIN experiments e ON e.id = r.experiment_id
     WHERE r.sweep_id = $1`,
    [sweep],
  );
  return new Map(rows.map((r) => [r.experiment_id as string, r]));
}

/** Inspect's log_file_pattern (inspect_ai/log/_file.py): a .json log is listed only under such a name. */
const LOG_FILE_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}.*$/;

describe(`a sweep as Inspect AI eval logs${schemaNote}`, () => {
  it('writes one .json log per agent and settings, valid against Inspect, its header before its samples', async () => {
    const files = await exportSweep(db, SWEEP, 'inspect', dir);
    // three agents under two observation formats: six evals of one maze, two epochs each
    expect(files.map((f) => f.rows)).toEqual([2, 2, 2, 2, 2, 2]);
    const runs = await dbRuns(SWEEP);
    for (const { file } of files) {
      expect(basename(file)).toMatch(LOG_FILE_PATTERN);
      expect(basename(file)).toMatch(/^[^_]+_formats_[^_]+\.json$/);
      const log = JSON.parse(readFileSync(file, 'utf8')) as Json;
      expect(Object.keys(log).at(-1)).toBe('samples');
      expect(validate('EvalLog')(log)).toEqual([]);
      expect(log.eval.task).toBe(SWEEP);
      expect(log.eval.config.epochs).toBe(2);
      expect(log.eval.dataset.sample_ids).toEqual(['medium-11x11-s1']);
      for (const sample of log.samples as Json[]) {
        const row = runs.get(sample.uuid)!;
        expect(sample.id).toBe('medium-11x11-s1');
        expect(sample.epoch).toBe(row.repeat);
        expect(log.eval.model).toEqual(
          row.label === 'frontier' ? 'baseline/frontier' : expect.stringMatching(/^ollama\//),
        );
        if (row.outcome_class === 'error') {
          expect(sample.scores).toBeNull();
          expect(sample.error.message).toMatch(/404/);
          continue;
        }
        // every run here ran out of moves (max_moves 12): the limit that stopped it
        expect(row.stop_reason).toBe('max_moves');
        expect(sample.limit).toEqual({ type: 'custom', limit: 12 });
        expect(sample.metadata.simulated).toBe(row.simulated);
        expect(sample.scores.success.value).toBe(row.goal_found ? 1 : 0);
        expect(sample.scores.actions.value).toBe(row.actions);
        expect(sample.scores.efficiency?.value ?? null).toBe(row.efficiency);
        const usage = Object.values(sample.model_usage as Record<string, Json>);
        if (row.llm_calls === 0) expect(usage).toEqual([]);
        else
          expect(usage[0]).toMatchObject({
            input_tokens: row.input_tokens,
            output_tokens: row.output_tokens,
            total_cost: row.cost_usd,
          });
      }
      const rows = (log.samples as Json[]).map((x) => runs.get(x.uuid)!);
      const simulated = rows.filter((r) => r.simulated).length;
      expect(log.tags).toEqual(simulated > 0 ? ['simulated'] : []);
      expect(log.eval.metadata.ariadne.simulated_runs).toBe(simulated);
      const scored = (log.samples as Json[]).filter((x) => x.scores);
      if (scored.length === 0) {
        // the missing model: every run an error, so the eval failed, as Inspect says of one
        expect(log.status).toBe('error');
        expect(log.error.message).toMatch(/every run ended by an error; the first: .*404/);
        expect(log.results).toBeNull();
        continue;
      }
      expect(log.status).toBe('success');
      const success = (log.results.scores as Json[]).find((x) => x.name === 'success')!;
      expect(success.metrics.accuracy.value).toBe(rows.filter((r) => r.goal_found).length / rows.length);
      // one maze says nothing of how mazes vary: no standard error, however many epochs
      expect(success.metrics.stderr).toBeUndefined();
      expect(success.metadata.mazes).toBe(1);
      // frontier's repeats are one observation (a copy counted once), a model's two
      expect(success.scored_samples).toBe(log.eval.model === 'baseline/frontier' ? 1 : 2);
    }
  });

  it('gives each score its standard error over mazes, as Inspect does for epochs reduced by their mean', async () => {
    const files = await exportSweep(db, SPREAD, 'inspect', join(dir, 'spread'));
    const runs = await dbRuns(SPREAD);
    expect(files).toHaveLength(2);
    for (const { file } of files) {
      const log = JSON.parse(readFileSync(file, 'utf8')) as Json;
      expect(validate('EvalLog')(log)).toEqual([]);
      const rows = (log.samples as Json[]).map((x) => runs.get(x.uuid)!);
      for (const name of ['success', 'actions']) {
        // each maze's mean over its epochs, then their mean and sample standard deviation / sqrt(mazes)
        const value = (r: Json) => (name === 'success' ? (r.goal_found ? 1 : 0) : (r.actions as number));
        const byMaze = [1, 2, 3].map((seed) => rows.filter((r) => r.maze_seed === seed).map(value));
        const means = byMaze.map((xs) => xs.reduce((a, x) => a + x, 0) / xs.length);
        const grand = means.reduce((a, x) => a + x, 0) / 3;
        const sd = Math.sqrt(means.reduce((a, x) => a + (x - grand) ** 2, 0) / 2);
        const score = (log.results.scores as Json[]).find((x) => x.name === name)!;
        const metric = score.metrics[name === 'success' ? 'accuracy' : 'mean'];
        expect(metric.value).toBeCloseTo(grand, 12);
        expect(score.metrics.stderr.value).toBeCloseTo(sd / Math.sqrt(3), 12);
        expect(score.metrics.stderr.metadata).toEqual({ over: 'mazes', mazes: 3 });
        // frontier plays a maze the same each time: its second repeats are copies, counted once
        expect(score.scored_samples).toBe(log.eval.solver === 'frontier' ? 3 : 6);
      }
    }
  });

  it('tells a recorded conversation once: the system prompt, each observation, reply and result', async () => {
    const [file] = await exportOpen(db, { run: bedrockRun }, 'inspect', join(dir, 'one'));
    const log = JSON.parse(readFileSync(file.file, 'utf8')) as Json;
    expect(validate('EvalLog')(log)).toEqual([]);
    const [sample] = log.samples as Json[];
    const messages = sample.messages as Json[];
    const { rows } = await db.pool.query(
      `SELECT (SELECT count(*)::int FROM llm_calls WHERE experiment_id = $1) AS calls,
         (SELECT count(*)::int FROM turns WHERE experiment_id = $1) AS turns,
         -- every result but those of the last reply, which the run's end left unsent
         (SELECT count(*)::int FROM actions a WHERE experiment_id = $1 AND NOT EXISTS (
            SELECT 1 FROM llm_calls l WHERE l.experiment_id = $1 AND l.turn_number = a.turn_number
              AND a.call_index >= l.first_action_index
              AND (l.turn_number, l.call_index) = (SELECT turn_number, call_index FROM llm_calls
                WHERE experiment_id = $1 ORDER BY turn_number DESC, call_index DESC LIMIT 1))) AS actions`,
      [bedrockRun],
    );
    expect(messages[0].role).toBe('system');
    expect(sample.input).toEqual([messages[1]]);
    // each reply says the bundled simulator answered it, as its call does
    const { rows: answered } = await db.pool.query(
      'SELECT simulator FROM llm_calls WHERE experiment_id = $1 ORDER BY turn_number, call_index',
      [bedrockRun],
    );
    expect(answered[0].simulator).toBe('bedrock');
    expect(messages.filter((m) => m.role === 'assistant').map((m) => m.metadata?.simulator ?? null)).toEqual(
      answered.map((r) => r.simulator),
    );
    expect(messages[1].role).toBe('user');
    // a reply each call, a result each tool call the model was sent, an observation each turn: none told twice
    // though each turn's request carried the conversation before it
    expect(messages.filter((m) => m.role === 'assistant')).toHaveLength(rows[0].calls);
    expect(messages.filter((m) => m.role === 'tool')).toHaveLength(rows[0].actions);
    expect(messages.filter((m) => m.role === 'user').length).toBeGreaterThanOrEqual(rows[0].turns);
    const ids = messages.flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : []));
    expect(new Set(ids).size).toBe(ids.length);
    const { rows: spent } = await db.pool.query(
      `SELECT sum(cache_read_input_tokens)::int AS cache_read, sum(cache_write_input_tokens)::int AS cache_write,
         (SELECT cost_usd::float8 FROM experiment_summary WHERE experiment_id = $1) AS cost
       FROM llm_calls WHERE experiment_id = $1`,
      [bedrockRun],
    );
    expect(Object.values(sample.model_usage as Record<string, Json>)[0]).toMatchObject({
      input_tokens_cache_read: spent[0].cache_read,
      input_tokens_cache_write: spent[0].cache_write,
      total_cost: spent[0].cost,
    });
    expect(spent[0].cost).toBeGreaterThan(0);
  });

  it('writes the same samples as .eval logs: header.json, summaries.json and one entry per sample', async () => {
    const json = await exportSweep(db, SWEEP, 'inspect', join(dir, 'json'));
    const evals = await exportSweep(db, SWEEP, 'inspect-eval', join(dir, 'eval'));
    expect(evals.map((f) => basename(f.file).replace(/\.eval$/, ''))).toEqual(
      json.map((f) => basename(f.file).replace(/\.json$/, '')),
    );
    for (const [i, { file }] of evals.entries()) {
      expect(readFileSync(file).subarray(0, 4)).toEqual(Buffer.from('PK\x03\x04', 'latin1'));
      const entries = unzip(file);
      const header = JSON.parse(entries.get('header.json')!) as Json;
      const { samples, ...jsonHeader } = JSON.parse(readFileSync(json[i].file, 'utf8')) as Json;
      expect(header).toEqual(jsonHeader);
      // the start journal, whence other readers of .eval files (and Inspect's, without a header) take the eval
      expect(JSON.parse(entries.get('_journal/start.json')!)).toEqual({
        version: header.version,
        eval: header.eval,
        plan: header.plan,
      });
      const others = [...entries.keys()].filter((n) => !n.startsWith('samples/')).sort();
      expect(others).toEqual(['_journal/start.json', 'header.json', 'summaries.json']);
      expect(validate('EvalLog')(header)).toEqual([]);
      const summaries = JSON.parse(entries.get('summaries.json')!) as Json[];
      expect(summaries.map((s) => [s.id, s.epoch])).toEqual((samples as Json[]).map((s) => [s.id, s.epoch]));
      for (const s of summaries) expect(validate('EvalSampleSummary')(s)).toEqual([]);
      for (const s of samples as Json[]) {
        const entry = JSON.parse(entries.get(`samples/${s.id}_epoch_${s.epoch}.json`)!) as Json;
        expect(entry).toEqual(s);
        expect(validate('EvalSample')(entry)).toEqual([]);
      }
    }
  });

  it("Inspect's schema refuses a log that is not Inspect's", async () => {
    const [{ file }] = await exportOpen(db, { run: bedrockRun }, 'inspect', join(dir, 'broken'));
    const log = JSON.parse(readFileSync(file, 'utf8')) as Json;
    const { task: _task, ...spec } = log.eval as Json;
    expect(validate('EvalLog')({ ...log, eval: spec }).length).toBeGreaterThan(0);
    expect(validate('EvalLog')({ ...log, eval: spec }).every((p) => /task/.test(p))).toBe(true);
    const sample = log.samples[0] as Json;
    const robot = { ...sample, messages: [{ role: 'robot', content: 'beep' }] };
    expect(validate('EvalSample')(robot).length).toBeGreaterThan(0);
    expect(validate('EvalSample')({ ...sample, epoch: '1' }).length).toBeGreaterThan(0);
  });

  it('finds what a request carries over from the one before it', () => {
    expect(carriedOver([], ['a'])).toBe(0);
    expect(carriedOver(['a', 'b'], ['a', 'b', 'c'])).toBe(2); // the same turn: the whole request again
    expect(carriedOver(['a', 'b', 'c'], ['b', 'c', 'd'])).toBe(2); // the oldest message trimmed
    expect(carriedOver(['a', 'b'], ['c', 'a'])).toBe(0); // a fresh turn
  });
});

const require = createRequire(import.meta.url);
// OpenTelemetry's own protobuf code for OTLP, generated from opentelemetry-proto (protobufjs static code)
const otlp = (require('@opentelemetry/otlp-transformer/build/src/generated/root.js') as Json).opentelemetry.proto;
const Request = otlp.collector.trace.v1.ExportTraceServiceRequest;

/** OTLP JSON (hex ids) as protobufjs's JSON (bytes) and back. */
function idsAs(value: unknown, to: 'bytes' | 'hex'): unknown {
  if (Array.isArray(value)) return value.map((v) => idsAs(v, to));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      ['traceId', 'spanId', 'parentSpanId'].includes(k)
        ? to === 'bytes'
          ? Buffer.from(v as string, 'hex')
          : Buffer.from(v as string, 'base64').toString('hex')
        : idsAs(v, to),
    ]),
  );
}

/** What the OTLP JSON encoding requires of a trace, from the proto files and their JSON mapping. */
function encodingProblems(request: Json): string[] {
  const problems: string[] = [];
  const spans = (request.resourceSpans as Json[]).flatMap((r) => (r.scopeSpans as Json[]).flatMap((s) => s.spans));
  const byId = new Set(spans.map((s: Json) => s.spanId));
  for (const s of spans as Json[]) {
    if (!/^[0-9a-f]{32}$/.test(s.traceId) || /^0+$/.test(s.traceId)) problems.push(`traceId ${s.traceId}`);
    if (!/^[0-9a-f]{16}$/.test(s.spanId) || /^0+$/.test(s.spanId)) problems.push(`spanId ${s.spanId}`);
    if (s.parentSpanId !== undefined && !byId.has(s.parentSpanId)) problems.push(`${s.name}: no parent in the trace`);
    for (const k of ['startTimeUnixNano', 'endTimeUnixNano'])
      if (typeof s[k] !== 'string' || !/^\d+$/.test(s[k])) problems.push(`${s.name}: ${k} is not a decimal string`);
    if (BigInt(s.endTimeUnixNano) < BigInt(s.startTimeUnixNano)) problems.push(`${s.name}: ends before it starts`);
    if (!Number.isInteger(s.kind) || s.kind < 0 || s.kind > 5) problems.push(`${s.name}: kind ${s.kind}`);
    if (![0, 1, 2].includes(s.status.code)) problems.push(`${s.name}: status ${s.status.code}`);
    for (const a of s.attributes as Json[]) {
      const [kind, ...more] = Object.keys(a.value);
      const ok = { stringValue: 'string', boolValue: 'boolean', doubleValue: 'number', arrayValue: 'object' };
      if (more.length > 0) problems.push(`${a.key}: more than one value`);
      else if (
        kind === 'intValue' ? !/^-?\d+$/.test(a.value.intValue) : typeof a.value[kind] !== ok[kind as 'boolValue']
      )
        problems.push(`${a.key}: ${JSON.stringify(a.value)}`);
    }
  }
  if (new Set(spans.map((s: Json) => s.traceId)).size !== 1) problems.push('more than one trace');
  return problems;
}

const attr = (span: Json, key: string) => {
  const v = (span.attributes as Json[]).find((a) => a.key === key)?.value;
  return v === undefined ? undefined : v.intValue !== undefined ? Number(v.intValue) : Object.values(v)[0];
};

describe('model calls as OpenTelemetry GenAI spans in OTLP JSON', () => {
  it("writes a trace per run, each line well encoded and decoded whole by OpenTelemetry's protobuf code", async () => {
    const [file] = await exportSweep(db, SWEEP, 'otlp', join(dir, 'otlp'));
    expect(basename(file.file)).toBe('formats-traces.otlp.jsonl');
    const lines = readFileSync(file.file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(12);
    const types = new Map<string, Set<string>>();
    for (const line of lines) {
      const request = JSON.parse(line) as Json;
      expect(encodingProblems(request)).toEqual([]);
      for (const r of request.resourceSpans as Json[])
        for (const span of r.scopeSpans[0].spans as Json[])
          for (const a of span.attributes as Json[])
            types.set(a.key, (types.get(a.key) ?? new Set()).add(Object.keys(a.value)[0]));
      const message = Request.fromObject(idsAs(request, 'bytes'));
      expect(Request.verify(message)).toBeNull();
      const decoded = Request.toObject(Request.decode(Request.encode(message).finish()), { longs: String });
      // every field survived the round trip: none unknown to the proto, none of the wrong type
      expect(idsAs(decoded, 'hex')).toEqual(request);
    }
    // one type per attribute key, whatever the value (a cost of 0 is a double, as any other cost)
    expect([...types].filter(([, t]) => t.size > 1)).toEqual([]);
  });

  it("holds each call's tokens, latency and cost, under its turn, under the run", async () => {
    const [file] = await exportOpen(db, { run: bedrockRun }, 'otlp', join(dir, 'otlp-one'));
    const [request] = readFileSync(file.file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Json);
    const spans = request.resourceSpans[0].scopeSpans[0].spans as Json[];
    const { rows: calls } = await db.pool.query(
      `SELECT turn_number, input_tokens, output_tokens, cache_read_input_tokens AS cache_read,
         coalesce(cache_write_input_tokens, 0) AS cache_write, latency_ms
       FROM llm_calls WHERE experiment_id = $1 ORDER BY turn_number, call_index`,
      [bedrockRun],
    );
    const { rows: turns } = await db.pool.query(
      'SELECT turn_number, cost_usd::float8 AS cost FROM turns WHERE experiment_id = $1 ORDER BY turn_number',
      [bedrockRun],
    );
    const [root, ...rest] = spans;
    const turnSpans = rest.filter((s) => s.parentSpanId === root.spanId);
    const chats = rest.filter((s) => s.name.startsWith('chat '));
    expect(attr(root, 'gen_ai.operation.name')).toBe('invoke_agent');
    expect(turnSpans).toHaveLength(turns.length);
    expect(chats).toHaveLength(calls.length);
    for (const [i, c] of calls.entries()) {
      const span = chats[i];
      expect(span.kind).toBe(3);
      expect(span.name).toBe('chat us.anthropic.claude-sonnet-4-6');
      expect(attr(span, 'gen_ai.provider.name')).toBe('aws.bedrock');
      expect(attr(span, 'gen_ai.usage.input_tokens')).toBe(c.input_tokens + c.cache_read + c.cache_write);
      expect(attr(span, 'gen_ai.usage.output_tokens')).toBe(c.output_tokens);
      expect(attr(span, 'gen_ai.usage.cache_read.input_tokens')).toBe(c.cache_read);
      expect(BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano)).toBe(BigInt(c.latency_ms) * 1_000_000n);
      const turn = turnSpans.find((t) => attr(t, 'ariadne.turn') === c.turn_number)!;
      expect(span.parentSpanId).toBe(turn.spanId);
    }
    // each action an execute_tool span under its turn, after the call that made it
    const { rows: actions } = await db.pool.query(
      'SELECT turn_number, tool FROM actions WHERE experiment_id = $1 ORDER BY turn_number, call_index',
      [bedrockRun],
    );
    const tools = rest.filter((s) => attr(s, 'gen_ai.operation.name') === 'execute_tool');
    expect(tools.map((s) => [attr(s, 'ariadne.turn'), attr(s, 'gen_ai.tool.name')])).toEqual(
      actions.map((a) => [a.turn_number, a.tool]),
    );
    for (const t of tools) {
      expect(t.name).toBe(`execute_tool ${attr(t, 'gen_ai.tool.name') as string}`);
      expect(t.parentSpanId).toBe(turnSpans.find((s) => attr(s, 'ariadne.turn') === attr(t, 'ariadne.turn'))!.spanId);
    }
    expect(attr(root, 'ariadne.simulated')).toBe(true);
    // the calls' costs add up to each turn's
    for (const t of turns) {
      const turn = turnSpans.find((s) => attr(s, 'ariadne.turn') === t.turn_number)!;
      const its = chats.filter((s) => s.parentSpanId === turn.spanId);
      expect(its.reduce((a, s) => a + (attr(s, 'ariadne.cost_usd') as number), 0)).toBeCloseTo(t.cost, 9);
    }
  });
});

/** The spans of a run's trace, exported on its own. */
async function traceOf(run: string, where: string): Promise<Json[]> {
  const [file] = await exportOpen(db, { run }, 'otlp', join(dir, where));
  const request = JSON.parse(readFileSync(file.file, 'utf8')) as Json;
  expect(encodingProblems(request)).toEqual([]);
  return request.resourceSpans[0].scopeSpans[0].spans as Json[];
}

/** The sample of a run's Inspect log, exported on its own, with the log's header. */
async function sampleOf(run: string, where: string): Promise<{ log: Json; sample: Json }> {
  const [file] = await exportOpen(db, { run }, 'inspect', join(dir, where));
  const log = JSON.parse(readFileSync(file.file, 'utf8')) as Json;
  expect(validate('EvalLog')(log)).toEqual([]);
  return { log, sample: log.samples[0] as Json };
}

describe('what was spent, stopped or not answered by a model, shown in both formats', () => {
  it('a turn that failed after 3 answers: an error sample with their tokens, and each as a chat span', async () => {
    const served = failing.replies.filter((r) => !r.fault);
    expect(served).toHaveLength(3);
    const [input, output] = [
      served.reduce((a, r) => a + r.inputTokens, 0),
      served.reduce((a, r) => a + r.outputTokens, 0),
    ];
    const { log, sample } = await sampleOf(abandonedRun, 'abandoned');
    expect(log.status).toBe('error');
    expect(sample.scores).toBeNull();
    expect(sample.error.message).toMatch(/400/);
    expect(sample.metadata.abandoned_calls).toBe(3);
    expect(sample.model_usage['ollama/abandon:1b']).toMatchObject({ input_tokens: input, output_tokens: output });
    const [root, ...spans] = await traceOf(abandonedRun, 'abandoned-otlp');
    expect(root.status.code).toBe(2);
    expect(attr(root, 'gen_ai.usage.input_tokens')).toBe(input);
    expect(attr(root, 'gen_ai.usage.output_tokens')).toBe(output);
    const abandoned = spans.filter((s) => attr(s, 'ariadne.abandoned') === true);
    expect(abandoned).toHaveLength(3);
    for (const s of abandoned) {
      expect(s.parentSpanId).toBe(root.spanId);
      expect(attr(s, 'gen_ai.operation.name')).toBe('chat');
      expect(attr(s, 'ariadne.abandoned.error')).toMatch(/400/);
    }
    expect(abandoned.reduce((a, s) => a + (attr(s, 'gen_ai.usage.input_tokens') as number), 0)).toBe(input);
  });

  const { ariadne } = cli(() => db);
  it('a replay: each reply answered by the record, the run it replays named, the log tagged', async () => {
    const r = await ariadne(['rerun', bedrockRun, '--replay', '--experiment-id', 'formats-replay', '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    const { log, sample } = await sampleOf('formats-replay', 'replay');
    expect(log.tags).toContain('replay');
    expect(sample.metadata).toMatchObject({ replay_of: bedrockRun, from_cache: false });
    const replies = (sample.messages as Json[]).filter((m) => m.role === 'assistant');
    expect(replies.length).toBeGreaterThan(0);
    expect(replies.map((m) => m.metadata?.answered_by)).toEqual(replies.map(() => 'replay'));
    const [root, ...spans] = await traceOf('formats-replay', 'replay-otlp');
    expect(attr(root, 'ariadne.replay_of')).toBe(bedrockRun);
    const chats = spans.filter((s) => attr(s, 'gen_ai.operation.name') === 'chat');
    expect(chats.map((s) => attr(s, 'ariadne.answered_by'))).toEqual(replies.map(() => 'replay'));
  });
});

describe('the open formats over both transports and from the CLI', () => {
  it.each(['inspect', 'inspect-eval', 'otlp'] as const)('%s: the same bytes over pg and the Data API', async (f) => {
    const overPg = await exportSweep(db, SWEEP, f, join(dir, `pg-${f}`));
    const before = sim.requests.length;
    const overApi = await exportSweep(api, SWEEP, f, join(dir, `api-${f}`));
    expect(sim.requests.length).toBeGreaterThan(before);
    expect(overApi.map((x) => basename(x.file))).toEqual(overPg.map((x) => basename(x.file)));
    for (const [i, x] of overPg.entries()) expect(readFileSync(overApi[i].file)).toEqual(readFileSync(x.file));
  });

  const { ariadne } = cli(() => db);
  it('ariadne export --run ID --format inspect writes one log; --run takes only the open formats', async () => {
    const out = join(dir, 'cli');
    const r = await ariadne(['export', '--run', bedrockRun, '--format', 'inspect', '--out-dir', out, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout) as Json;
    expect(printed).toMatchObject({ experiment_id: bedrockRun, format: 'inspect', files: [{ rows: 1 }] });
    expect(readdirSync(join(out, `${bedrockRun}-inspect`))).toHaveLength(1);
    const csv = await ariadne(['export', '--run', bedrockRun, '--format', 'csv', '--out-dir', out]);
    expect(csv.code).toBe(2);
    expect(csv.stderr).toMatch(/one run exports as inspect, inspect-eval, otlp/);
    const both = await ariadne(['export', SWEEP, '--run', bedrockRun, '--format', 'otlp', '--out-dir', out]);
    expect(both.code).toBe(2);
    const none = await ariadne(['export', '--run', 'no-such-run', '--format', 'otlp', '--out-dir', out]);
    expect(none.stderr).toMatch(/no experiment with id "no-such-run"/);
  });
});
