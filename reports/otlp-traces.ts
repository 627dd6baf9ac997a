// A run's model calls as OpenTelemetry spans (GenAI semantic conventions as @opentelemetry/semantic-conventions 1.45
// names them), OTLP JSON: a trace per run, its root invoke_agent, a span per turn, under it a chat span per call and
// an execute_tool span per action; a call its failed turn abandoned is a chat span under the root. A sweep is JSON
// Lines, one ExportTraceServiceRequest per run (each line can be POSTed to a collector's /v1/traces). Ids derive from
// the experiment id, so an export is the same twice.
import { createHash } from 'node:crypto';
import type { ExperimentConfig } from '../core/config/experiment-config.ts';
import { priceOf, reportedCostUsd } from '../core/engine/token-cost.ts';
import { createWriteStream, mkdirSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import type { Sql } from '../core/store/sql.ts';
import { readAhead } from '../core/store/pages.ts';
import { ARIADNE_VERSION } from './package-version.ts';
import {
  fromCache,
  runsOfSource,
  runTimeline,
  sourceRunCount,
  type AbandonedCall,
  type ExportedAction,
  type ExportedCall,
  type ExportedRun,
  type ExportedTurn,
  type ExportSource,
} from '../results/run-export.ts';

/** OTLP's AnyValue in JSON: 64-bit integers as decimal strings. */
type AnyValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: AnyValue[] } };

interface KeyValue {
  key: string;
  value: AnyValue;
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: KeyValue[];
  status: { code: number; message?: string };
}

/** SpanKind and StatusCode (opentelemetry/proto/trace/v1/trace.proto): enums are integers in OTLP JSON. */
const KIND = { internal: 1, client: 3 } as const;
const STATUS = { unset: 0, error: 2 } as const;

const hex = (text: string, bytes: number) =>
  createHash('sha256')
    .update(text)
    .digest('hex')
    .slice(0, bytes * 2);

/** Attributes that are fractions, a double however round their value: one key, one type, in every span. */
const DOUBLES = new Set(['ariadne.cost_usd', 'ariadne.efficiency']);

function value(key: string, v: string | number | boolean | string[]): AnyValue {
  if (Array.isArray(v)) return { arrayValue: { values: v.map((s) => ({ stringValue: s })) } };
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  return Number.isInteger(v) && !DOUBLES.has(key) ? { intValue: String(v) } : { doubleValue: v };
}

/** Attributes from an object, leaving out the keys whose value is null or undefined. */
function attributes(o: Record<string, string | number | boolean | string[] | null | undefined>): KeyValue[] {
  return Object.entries(o).flatMap(([key, v]) =>
    v === null || v === undefined ? [] : [{ key, value: value(key, v) }],
  );
}

/** Unix nanoseconds as OTLP's decimal string: a Date (milliseconds) plus an offset in milliseconds. */
function nanos(d: Date, plusMs = 0): string {
  return (BigInt(d.getTime()) * 1_000_000n + BigInt(Math.round(plusMs * 1e6))).toString();
}

/** gen_ai.provider.name: the registry's well-known value where one applies, else the provider's own name. */
function providerName(provider: string): string {
  if (provider === 'bedrock') return 'aws.bedrock';
  if (provider === 'baseline') return 'ariadne.baseline';
  return provider; // openai, ollama
}

const sum = (...xs: Array<number | null>): number | null =>
  xs.every((x) => x === null) ? null : xs.reduce<number>((a, x) => a + (x ?? 0), 0);

type Usage = Pick<
  ExportedCall,
  | 'input_tokens'
  | 'output_tokens'
  | 'cache_read_input_tokens'
  | 'cache_write_input_tokens'
  | 'reported_reasoning_tokens'
>;

/** A call's tokens as the conventions count them: input with the cache reads and writes. */
const usageAttributes = (c: Usage) => ({
  'gen_ai.usage.input_tokens': sum(c.input_tokens, c.cache_read_input_tokens, c.cache_write_input_tokens),
  'gen_ai.usage.output_tokens': c.output_tokens,
  'gen_ai.usage.cache_read.input_tokens': c.cache_read_input_tokens,
  'gen_ai.usage.cache_creation.input_tokens': c.cache_write_input_tokens,
  'gen_ai.usage.reasoning.output_tokens': c.reported_reasoning_tokens,
});

const num = (v: unknown) => (typeof v === 'number' ? v : null);

/** What a chat span says of the model and its request: the conventions' request attributes, from the config. */
const requestAttributes = (run: ExportedRun) => ({
  'gen_ai.operation.name': 'chat',
  'gen_ai.provider.name': providerName(run.provider),
  'gen_ai.request.model': run.model,
  'gen_ai.request.temperature': num(run.config.temperature),
  'gen_ai.request.top_p': num(run.config.top_p),
  'gen_ai.request.max_tokens': num(run.config.max_output_tokens),
  'gen_ai.conversation.id': run.experiment_id,
});

/** A model call's chat span: its tokens, cost and latency, and who answered it (simulator, replay, cache). */
function callSpan(run: ExportedRun, call: ExportedCall, parent: string, start: Date, offsetMs: number): OtlpSpan {
  const { traceId } = ids(run.experiment_id);
  const price = run.model ? priceOf((run.config.prices ?? {}) as ExperimentConfig['prices'], run.model) : undefined;
  const cost = reportedCostUsd(price, {
    inputTokens: call.input_tokens,
    outputTokens: call.output_tokens,
    cacheReadInputTokens: call.cache_read_input_tokens,
    cacheWriteInputTokens: call.cache_write_input_tokens,
  });
  return {
    traceId,
    spanId: hex(`span/${run.experiment_id}/${call.turn_number}/${call.call_index}`, 8),
    parentSpanId: parent,
    name: `chat ${run.model ?? run.agent}`,
    kind: KIND.client,
    startTimeUnixNano: nanos(start, offsetMs),
    endTimeUnixNano: nanos(start, offsetMs + call.latency_ms),
    attributes: attributes({
      ...requestAttributes(run),
      ...usageAttributes(call),
      'gen_ai.response.finish_reasons': call.stop_reason === null ? null : [call.stop_reason],
      'ariadne.turn': call.turn_number,
      'ariadne.call_index': call.call_index,
      'ariadne.input_tokens': call.input_tokens,
      'ariadne.latency_ms': call.latency_ms,
      'ariadne.retries': call.retries.length,
      'ariadne.cost_usd': cost,
      'ariadne.truncated': call.truncated,
      'ariadne.prompt_truncated': call.prompt_truncated,
      'ariadne.simulator': call.simulator,
      'ariadne.answered_by': call.answered_by,
    }),
    status: { code: STATUS.unset },
  };
}

/**
 * A call answered in a try of a turn that then failed: a chat span under the root (its turn was never written),
 * ending when it was written down (after the try failed), lasting its latency; its tokens and cost are the run's.
 */
function abandonedSpan(run: ExportedRun, call: AbandonedCall, root: string): OtlpSpan {
  return {
    traceId: ids(run.experiment_id).traceId,
    spanId: hex(`abandoned/${run.experiment_id}/${call.turn_number}/${call.attempt}/${call.call_index}`, 8),
    parentSpanId: root,
    name: `chat ${run.model ?? run.agent}`,
    kind: KIND.client,
    startTimeUnixNano: nanos(call.recorded_at, -call.latency_ms),
    endTimeUnixNano: nanos(call.recorded_at),
    attributes: attributes({
      ...requestAttributes(run),
      ...usageAttributes(call),
      'gen_ai.response.finish_reasons': call.stop_reason === null ? null : [call.stop_reason],
      'ariadne.turn': call.turn_number,
      'ariadne.call_index': call.call_index,
      'ariadne.input_tokens': call.input_tokens,
      'ariadne.latency_ms': call.latency_ms,
      'ariadne.cost_usd': call.cost_usd,
      'ariadne.abandoned': true,
      'ariadne.abandoned.error': call.error,
    }),
    status: { code: STATUS.unset },
  };
}

/** An action as an execute_tool span at `at` (the log keeps no action's time or duration); a refused one errs. */
function toolSpan(run: ExportedRun, action: ExportedAction, parent: string, at: string): OtlpSpan {
  return {
    traceId: ids(run.experiment_id).traceId,
    spanId: hex(`tool/${run.experiment_id}/${action.turn_number}/${action.call_index}`, 8),
    parentSpanId: parent,
    name: `execute_tool ${action.tool}`,
    kind: KIND.internal,
    startTimeUnixNano: at,
    endTimeUnixNano: at,
    attributes: attributes({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': action.tool,
      'gen_ai.tool.type': 'function',
      'error.type': action.executed ? null : action.outcome,
      'ariadne.turn': action.turn_number,
      'ariadne.call_index': action.call_index,
      'ariadne.action.executed': action.executed,
      'ariadne.action.success': action.success,
      'ariadne.action.outcome': action.outcome,
    }),
    status: action.executed ? { code: STATUS.unset } : { code: STATUS.error, message: action.message ?? '' },
  };
}

function turnSpan(run: ExportedRun, turn: ExportedTurn, root: string): OtlpSpan {
  return {
    traceId: ids(run.experiment_id).traceId,
    spanId: hex(`span/${run.experiment_id}/${turn.turn_number}`, 8),
    parentSpanId: root,
    name: `turn ${turn.turn_number}`,
    kind: KIND.internal,
    startTimeUnixNano: nanos(turn.started_at),
    endTimeUnixNano: nanos(turn.ended_at),
    attributes: attributes({
      'ariadne.turn': turn.turn_number,
      'ariadne.turn.stop_reason': turn.stop_reason,
      'ariadne.turn.actions_executed': turn.actions_executed,
      'ariadne.turn.llm_calls': turn.llm_calls,
      'ariadne.input_tokens': turn.input_tokens,
      'ariadne.output_tokens': turn.output_tokens,
      'ariadne.cost_usd': turn.cost_usd,
      'ariadne.latency_ms': turn.latency_ms,
      'ariadne.goal_found': turn.goal_found,
    }),
    status: { code: STATUS.unset },
  };
}

const ids = (experimentId: string) => ({
  traceId: hex(`trace/${experimentId}`, 16),
  rootId: hex(`span/${experimentId}`, 8),
});

/** What the run's numbers rest on: a simulator, answers not the model's, cut prompts, calls no turn kept. */
const provenanceAttributes = (run: ExportedRun) => ({
  'ariadne.simulated': run.simulated,
  'ariadne.from_cache': fromCache(run),
  'ariadne.replayed_requests': run.replayed_requests,
  'ariadne.cached_requests': run.cached_requests,
  'ariadne.replay_of': run.replay_of,
  'ariadne.forked_from': run.forked_from,
  'ariadne.fork_step': run.fork_step,
  'ariadne.prompt_truncated_calls': run.prompt_truncated_calls,
  'ariadne.abandoned_calls': run.abandoned_calls,
});

/** The run's root span; its usage is every answered call's (input with the cache), as its children's add up. */
function rootSpan(run: ExportedRun, end: Date, calls: Usage[]): OtlpSpan {
  const failed = run.outcome_class === 'error';
  const total = (f: (c: Usage) => number | null) => sum(...calls.map(f));
  return {
    traceId: ids(run.experiment_id).traceId,
    spanId: ids(run.experiment_id).rootId,
    name: `invoke_agent ${run.label}`,
    kind: KIND.internal,
    startTimeUnixNano: nanos(run.started_at),
    endTimeUnixNano: nanos(end),
    attributes: attributes({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': providerName(run.provider),
      'gen_ai.agent.name': run.label,
      'gen_ai.conversation.id': run.experiment_id,
      'gen_ai.request.model': run.model,
      'gen_ai.usage.input_tokens': total((c) =>
        sum(c.input_tokens, c.cache_read_input_tokens, c.cache_write_input_tokens),
      ),
      'gen_ai.usage.output_tokens': total((c) => c.output_tokens),
      'error.type': failed ? 'run_failed' : null,
      'ariadne.experiment_id': run.experiment_id,
      'ariadne.sweep': run.sweep_id,
      'ariadne.cell_index': run.cell_index,
      'ariadne.repeat': run.repeat,
      'ariadne.agent': run.agent,
      'ariadne.maze': `${run.maze_generator} ${run.maze_width}x${run.maze_height} seed ${run.maze_seed ?? '-'}`,
      'ariadne.status': run.status,
      'ariadne.outcome_class': run.outcome_class,
      'ariadne.goal_found': run.goal_found,
      'ariadne.stop_reason': run.stop_reason,
      'ariadne.actions': run.actions,
      'ariadne.optimal_moves': run.optimal_moves,
      'ariadne.efficiency': run.efficiency,
      'ariadne.llm_calls': run.llm_calls,
      'ariadne.input_tokens': run.input_tokens,
      'ariadne.output_tokens': run.output_tokens,
      'ariadne.cost_usd': run.cost_usd,
      ...provenanceAttributes(run),
    }),
    status: failed ? { code: STATUS.error, message: run.failure_reason ?? run.status } : { code: STATUS.unset },
  };
}

type Timeline = Awaited<ReturnType<typeof runTimeline>>;

/** A turn's spans: the turn, then each call and the actions it made; actions of no call (a baseline's) at its start. */
function turnSpans(run: ExportedRun, turn: ExportedTurn, t: Timeline, root: string): OtlpSpan[] {
  const span = turnSpan(run, turn, root);
  const calls = t.calls.filter((c) => c.turn_number === turn.turn_number);
  let actions = t.actions.filter((a) => a.turn_number === turn.turn_number);
  const spans = [span];
  let elapsed = 0;
  for (const [i, call] of calls.entries()) {
    elapsed += call.retries.reduce((a, r) => a + (r.delay_ms ?? 0), 0);
    const chat = callSpan(run, call, span.spanId, turn.started_at, elapsed);
    elapsed += call.latency_ms;
    const [from, to] = [call.first_action_index ?? Infinity, calls[i + 1]?.first_action_index ?? Infinity];
    const made = (a: ExportedAction) => a.call_index >= from && a.call_index < to;
    spans.push(chat, ...actions.filter(made).map((a) => toolSpan(run, a, span.spanId, chat.endTimeUnixNano)));
    actions = actions.filter((a) => !made(a));
  }
  return [...spans, ...actions.map((a) => toolSpan(run, a, span.spanId, span.startTimeUnixNano))];
}

/**
 * The run's spans: the root, its turns, each turn's calls laid one after another from the turn's start (the log
 * keeps each call's latency and retry waits, not when it began: a call starts after the waits before it), each
 * call's actions at its end, and the abandoned calls under the root.
 */
function runSpans(run: ExportedRun, t: Timeline): OtlpSpan[] {
  const end = run.completed_at ?? t.turns.at(-1)?.ended_at ?? run.started_at;
  const root = rootSpan(run, end, [...t.calls, ...t.abandoned]);
  return [
    root,
    ...t.turns.flatMap((turn) => turnSpans(run, turn, t, root.spanId)),
    ...t.abandoned.map((c) => abandonedSpan(run, c, root.spanId)),
  ];
}

/** One run's trace as an ExportTraceServiceRequest (the same shape as TracesData). */
function traceRequest(spans: OtlpSpan[], version: string) {
  return {
    resourceSpans: [
      {
        resource: { attributes: attributes({ 'service.name': 'ariadne', 'service.version': version }) },
        scopeSpans: [{ scope: { name: 'ariadne.export', version }, spans }],
      },
    ],
  };
}

/** Rows written so far of a file, and how many it will hold. */
export interface RunProgress {
  table: 'runs';
  rows: number;
  total: number;
}

/** The traces of a sweep or a run: `<name>-traces.otlp.jsonl` in `dir`, a line per run. */
export async function writeOtlpTraces(
  db: Sql,
  source: ExportSource,
  dir: string,
  onProgress?: (p: RunProgress) => void,
): Promise<Array<{ file: string; rows: number }>> {
  mkdirSync(dir, { recursive: true });
  const name = 'sweep' in source ? source.sweep : source.run;
  const file = join(dir, `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}-traces.otlp.jsonl`);
  const total = await sourceRunCount(db, source);
  const out = createWriteStream(file);
  let rows = 0;
  // each run's turns and calls read while the one before it is written
  async function* timelines() {
    for await (const page of runsOfSource(db, source))
      for (const run of page) yield { run, timeline: await runTimeline(db, run.experiment_id) };
  }
  for await (const { run, timeline } of readAhead(timelines())) {
    const line = `${JSON.stringify(traceRequest(runSpans(run, timeline), ARIADNE_VERSION))}\n`;
    if (!out.write(line)) await once(out, 'drain');
    onProgress?.({ table: 'runs', rows: ++rows, total });
  }
  out.end();
  await once(out, 'finish');
  return [{ file, rows }];
}
