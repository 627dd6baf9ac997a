// A run as an Inspect AI sample (inspect_ai.log EvalSample, log format version 2): the maze as its id, the repeat as
// its epoch, the conversation as recorded as its messages, success, efficiency and actions as its scores, the tokens
// of every answered call as its model usage. inspect-log-file.ts gathers the samples of one agent and settings into
// an eval log (EvalLog) and writes it as Inspect's .json or .eval; docs/data-model.md says what maps to what.
import { fromCache, type ExportedRun, type RecordedExchange, type RunUsage } from '../results/run-export.ts';
import type { runTimeline } from '../results/run-export.ts';
import {
  loggedConversation,
  recordedConversation,
  type InspectMessage,
  type RecordedReply,
} from './inspect-messages.ts';

/** Inspect's Score, as serialized. */
interface InspectScore {
  value: number;
  answer: string | null;
  explanation: string | null;
  metadata: Record<string, unknown> | null;
  history: [];
}

/** Inspect's ModelUsage, as serialized. */
export interface InspectUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  input_tokens_cache_read: number | null;
  input_tokens_cache_write: number | null;
  reasoning_tokens: number | null;
  total_cost: number | null;
}

export interface RunDetail {
  run: ExportedRun;
  timeline: Awaited<ReturnType<typeof runTimeline>>;
  usage: RunUsage;
  record: { exchanges: RecordedExchange[]; body: (hash: string) => string | undefined };
}

/** The model as Inspect names one: provider/model; a baseline as baseline/agent. */
export const modelNameOf = (run: Pick<ExportedRun, 'provider' | 'agent' | 'model'>): string =>
  run.provider === 'baseline' || run.model === null ? `baseline/${run.agent}` : `${run.provider}/${run.model}`;

/** The sample id: the maze (generator, size, seed), the same for every repeat of it. */
const sampleIdOf = (run: ExportedRun): string =>
  `${run.maze_generator}-${run.maze_width}x${run.maze_height}-s${run.maze_seed ?? run.maze_hash.slice(0, 12)}`;

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/** Inspect's stop reasons (ChatCompletionChoice.stop_reason) for the providers' own. */
function stopReason(reason: string | null, calls: number): string {
  if (reason === 'length' || reason === 'max_tokens') return 'max_tokens';
  if (calls > 0 || reason === 'tool_use' || reason === 'tool_calls') return 'tool_calls';
  if (reason === 'stop' || reason === 'end_turn' || reason === 'stop_sequence') return 'stop';
  return 'unknown';
}

const score = (value: number, explanation: string | null, metadata: Record<string, unknown> | null = null) => ({
  value,
  answer: null,
  explanation,
  metadata,
  history: [] as [],
});

/** success (1 or 0), efficiency (optimal / actions, successes only) and actions; none for a run an error ended. */
function scoresOf(run: ExportedRun): Record<string, InspectScore> | null {
  if (run.outcome_class === 'error' || run.outcome_class === 'running') return null;
  const how = `${run.status}${run.stop_reason ? ` (${run.stop_reason})` : ''}`;
  const scores: Record<string, InspectScore> = {
    success: score(run.goal_found ? 1 : 0, how, { outcome_class: run.outcome_class }),
    actions: score(run.actions, `${run.actions} actions; the shortest path is ${run.optimal_moves}`),
  };
  if (run.efficiency !== null)
    scores.efficiency = score(run.efficiency, `optimal ${run.optimal_moves} / ${run.actions} actions`);
  return scores;
}

/** The run's tokens as Inspect counts a model's: input, output, cache reads and writes, reasoning, cost. */
function usageOf(run: ExportedRun, u: RunUsage): Record<string, InspectUsage> {
  if (run.llm_calls === 0 && u.input_tokens === null && u.output_tokens === null) return {};
  const [input, output] = [u.input_tokens ?? 0, u.output_tokens ?? 0];
  const total = input + output + (u.cache_read_input_tokens ?? 0) + (u.cache_write_input_tokens ?? 0);
  return {
    [modelNameOf(run)]: {
      input_tokens: input,
      output_tokens: output,
      total_tokens: total,
      input_tokens_cache_read: u.cache_read_input_tokens,
      input_tokens_cache_write: u.cache_write_input_tokens,
      reasoning_tokens: u.reasoning_tokens,
      total_cost: run.cost_usd,
    },
  };
}

/** What the sample's metadata says of the run: every column a researcher filters by. */
function metadataOf(run: ExportedRun): Record<string, unknown> {
  return {
    experiment_id: run.experiment_id,
    sweep: run.sweep_id,
    cell_index: run.cell_index,
    attempt: run.attempt,
    label: run.label,
    agent: run.agent,
    provider: run.provider,
    model: run.model,
    prompt_version: run.prompt_version,
    settings: run.settings,
    maze: {
      generator: run.maze_generator,
      width: run.maze_width,
      height: run.maze_height,
      seed: run.maze_seed,
      content_hash: run.maze_hash,
      start: [run.start_x, run.start_y],
      goal: [run.goal_x, run.goal_y],
    },
    status: run.status,
    stop_reason: run.stop_reason,
    outcome_class: run.outcome_class,
    independent: run.independent,
    duplicate_of: run.duplicate_of,
    optimal_moves: run.optimal_moves,
    turns: run.turns,
    tiles_seen: run.tiles_seen,
    llm_calls: run.llm_calls,
    cost_usd: run.cost_usd,
    agent_seed: run.agent_seed,
    // what the numbers rest on: a simulator, answers not the model's, cut prompts, calls no turn kept
    simulated: run.simulated,
    from_cache: fromCache(run),
    recorded_requests: run.recorded_requests,
    replayed_requests: run.replayed_requests,
    cached_requests: run.cached_requests,
    replay_of: run.replay_of,
    forked_from: run.forked_from,
    fork_step: run.fork_step,
    prompt_truncated_calls: run.prompt_truncated_calls,
    abandoned_calls: run.abandoned_calls,
  };
}

/** The conversation: as the flight recorder kept it (every logged call recorded), else as the log tells it. */
function conversationOf(d: RunDetail): {
  messages: InspectMessage[];
  input: InspectMessage[];
  last: RecordedReply | null;
} {
  const model = d.run.model;
  const { calls, actions } = d.timeline;
  // abandoned calls have no record (nor a logged call): the record is whole when it holds every logged call
  const recorded = new Set(d.record.exchanges.map((x) => `${x.turn}/${x.callIndex}`));
  if (d.record.exchanges.length > 0 && calls.every((c) => recorded.has(`${c.turn_number}/${c.call_index}`)))
    return recordedConversation(d.record.exchanges, d.record.body, model, calls);
  const messages = loggedConversation(calls, actions, model);
  const call = calls.at(-1);
  return {
    messages,
    input: [],
    last: call ? { text: call.assistant_text ?? '', calls: [], stopReason: call.stop_reason } : null,
  };
}

/** The run's own limits that stop it, as Inspect's limit types: [stop reason, config key, type, to Inspect's unit]. */
const LIMITS = [
  ['max_duration', 'max_duration_minutes', 'time', 60],
  ['max_turns', 'max_turns', 'turn', 1],
  ['max_tokens', 'max_tokens', 'token', 1],
  ['max_cost_usd', 'max_cost_usd', 'cost', 1],
  ['max_moves', 'max_moves', 'custom', 1],
] as const;

/** The limit that stopped the run, if one did: the wall clock (seconds), turns, tokens, cost, or moves (custom). */
function limitOf(run: ExportedRun): { type: string; limit: number } | null {
  const hit = LIMITS.find(([reason]) => run.stop_reason === reason);
  if (!hit || run.outcome_class === 'success') return null;
  const value = Number(run.config[hit[1]]);
  return Number.isFinite(value) ? { type: hit[2], limit: value * hit[3] } : null;
}

/** The task the sample poses, when the record holds no first message: the maze, its start and its goal. */
const taskText = (r: ExportedRun) =>
  `Find the goal of the ${r.maze_generator} ${r.maze_width}x${r.maze_height} maze` +
  `${r.maze_seed === null ? '' : ` (seed ${r.maze_seed})`} from (${r.start_x}, ${r.start_y}).`;

/** The run as an EvalSample, serialized. */
export function inspectSample(d: RunDetail): Record<string, unknown> {
  const { run } = d;
  const { messages, input, last } = conversationOf(d);
  const lastAssistant = [...messages].reverse().find((m) => m.role === 'assistant');
  const model = modelNameOf(run);
  const errored = run.outcome_class === 'error';
  return {
    id: sampleIdOf(run),
    epoch: run.repeat ?? 1,
    input: input.length > 0 ? input : taskText(run),
    target: `the goal at (${run.goal_x}, ${run.goal_y}), ${run.optimal_moves} moves from the start`,
    messages,
    output: {
      model,
      choices: lastAssistant
        ? [{ message: lastAssistant, stop_reason: stopReason(last?.stopReason ?? null, last?.calls.length ?? 0) }]
        : [],
      completion: last?.text ?? '',
    },
    scores: scoresOf(run),
    metadata: metadataOf(run),
    store: {},
    events: [],
    model_usage: usageOf(run, d.usage),
    role_usage: {},
    started_at: iso(run.started_at),
    completed_at: iso(run.completed_at),
    total_time: run.wall_seconds,
    working_time: run.wall_seconds,
    uuid: run.experiment_id,
    error: errored ? { message: run.failure_reason ?? run.status, traceback: '', traceback_ansi: '' } : null,
    attachments: {},
    limit: limitOf(run),
    turn_count: run.turns,
  };
}

/** The sample's summary (EvalSampleSummary) for an .eval log's summaries.json: its header without the transcript. */
export function sampleSummary(sample: Record<string, unknown>): Record<string, unknown> {
  const keys = ['id', 'epoch', 'input', 'target', 'metadata', 'scores', 'model_usage', 'role_usage', 'started_at'];
  const more = ['completed_at', 'total_time', 'working_time', 'uuid', 'turn_count'];
  const error = sample.error as { message: string } | null;
  const limit = sample.limit as { type: string } | null;
  return {
    ...Object.fromEntries([...keys, ...more].map((k) => [k, sample[k]])),
    error: error?.message ?? null,
    limit: limit?.type ?? null,
    completed: (sample.metadata as { status: string }).status !== 'running',
    message_count: (sample.messages as unknown[]).length,
  };
}
