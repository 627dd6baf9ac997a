// The end-of-run summary a researcher reads first, and the commands worth trying next.
import { parse } from 'yaml';
import { agentStoryOf, type AgentStory } from '../../results/agent-story.ts';
import { modelCallDetails, type ModelCallCounts } from '../../results/model-calls.ts';
import { runMarksOf, type RunMarks } from '../../results/run-marks.ts';
import { beliefProbesOf, beliefProbeTotals, type BeliefProbeTotals } from '../../results/belief-probes.ts';
import type { ExperimentSummary } from '../../results/summary-row.ts';
import { isWorkflowText } from '../../core/engine/workflow/definition.ts';
import type { Sql } from '../../core/store/sql.ts';
import { commandPrefix } from './invocation.ts';
import { loadBehaviours } from '../../reports/run-behaviours.ts';
import { runBehaviourLines } from '../../reports/behaviour-text.ts';
import type { RunBehaviour } from '../../reports/behaviour.ts';

const TIMELINE_SHOWN = 12;

/** Actions per phase, and the timeline of phases (the first and last stretches when it is long). */
function describePhases(story: AgentStory, actions: number): string[] {
  const totals = new Map<string, number>();
  for (const p of story.phases) totals.set(p.phase, (totals.get(p.phase) ?? 0) + p.toStep - p.fromStep);
  const share = [...totals]
    .filter(([, n]) => n > 0)
    .map(([phase, n]) => `${phase} ${n} (${actions > 0 ? Math.round((100 * n) / actions) : 0}%)`)
    .join(', ');
  const stretch = (p: AgentStory['phases'][number]) => `${p.phase} ${p.fromStep + 1}-${p.toStep}`;
  const all = story.phases.filter((p) => p.toStep > p.fromStep);
  const timeline =
    all.length <= TIMELINE_SHOWN
      ? all.map(stretch).join(' > ')
      : `${all
          .slice(0, TIMELINE_SHOWN / 2)
          .map(stretch)
          .join(' > ')} > ... ${all.length - TIMELINE_SHOWN} more ... > ${all
          .slice(-TIMELINE_SHOWN / 2)
          .map(stretch)
          .join(' > ')}`;
  const lines = [`actions per phase: ${share || '-'}`, `timeline: ${timeline || story.phases.at(-1)?.phase || '-'}`];
  if (story.refusedTransitions > 0) lines.push(`refused transitions: ${story.refusedTransitions}`);
  return lines;
}

/**
 * What the experiments row adds to the view for an LLM run: its workflow, whether its model has a price (an unknown
 * price is "unknown", never $0), and what its model calls did (read by results/model-calls.ts).
 */
interface LlmDetails {
  workflow: string | null;
  priced: boolean;
  calls: ModelCallCounts;
  provenance: Record<string, unknown> | null;
}

async function llmDetailsOf(db: Sql, s: ExperimentSummary): Promise<LlmDetails> {
  const r = await modelCallDetails(db, s.experiment_id);
  const text = r?.prompt_text ?? null;
  let workflow: string | null = null;
  if (text !== null && isWorkflowText(text)) {
    // the stored text is the whole workflow file; its name is what the researcher wrote, not the version
    const doc = parse(text) as { workflow?: unknown } | null;
    workflow = typeof doc?.workflow === 'string' ? doc.workflow : null;
  }
  return {
    workflow,
    priced: r?.priced ?? false,
    calls: {
      truncated_calls: r?.truncated_calls ?? 0,
      reasoning_calls: r?.reasoning_calls ?? 0,
      estimate_off_calls: r?.estimate_off_calls ?? 0,
      text_tool_calls: r?.text_tool_calls ?? 0,
    },
    provenance: r?.provenance ?? null,
  };
}

/** The model's identity as its provenance record gives it: Ollama's digest, Bedrock's Region, OpenAI's server. */
function describeSource(p: Record<string, unknown> | null): string {
  if (!p) return 'not recorded';
  const str = (k: string): string | null => {
    const v = p[k];
    return typeof v === 'string' ? v : null;
  };
  if (p.provider === 'ollama')
    return [
      `digest ${str('model_digest')?.slice(0, 12) ?? '?'}`,
      str('quantization_level'),
      str('parameter_size'),
      `server ${str('server_version') ?? '?'}`,
    ]
      .filter(Boolean)
      .join(', ');
  if (p.provider === 'openai')
    return [str('base_url'), typeof p.served_model === 'object' && p.served_model ? 'listed by the server' : null]
      .filter(Boolean)
      .join(', ');
  return [str('inference_profile') ? `profile ${str('inference_profile')}` : str('model_id'), str('region')]
    .filter(Boolean)
    .join(', ');
}

/** Signals per detector, most frequent first (then by name): a long run's 125 signals read as one line. */
function countSignals(signals: AgentStory['signals']): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const g of signals) counts.set(g.detector, (counts.get(g.detector) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

function describeStuck(s: ExperimentSummary, counts: Array<[string, number]>): string {
  if (s.stuck_signals === 0) return 'no signal';
  return (
    `${s.stuck_signals} signal${s.stuck_signals === 1 ? '' : 's'}: ${counts.map(([d, n]) => `${d} ${n}`).join(', ')}` +
    `; first ${s.first_stuck_detector} at action ${s.first_stuck_step}`
  );
}

const count = (n: number | null) => (n === null ? 'not reported' : n.toLocaleString('en-US'));

function describeCost(s: ExperimentSummary, llm: LlmDetails): string {
  if (s.cost_usd !== null) return `$${s.cost_usd.toFixed(s.cost_usd >= 0.01 ? 4 : 6)}`;
  if (llm.priced) return 'unknown (the provider reported no token counts)';
  return `unknown (no price for ${s.model ?? 'this model'})`;
}

/** The rows an LLM run adds: who answered, with which prompt, and what it took. */
function llmRows(
  s: ExperimentSummary,
  llm: LlmDetails,
): { who: Array<[string, string]>; usage: Array<[string, string]> } {
  return {
    who: [
      ['provider', s.provider],
      ['model', s.model ?? '-'],
      llm.workflow !== null
        ? ['workflow', `${llm.workflow} (prompt version ${s.prompt_version ?? '-'})`]
        : ['prompt', s.prompt_version ?? '-'],
    ],
    usage: [
      [
        'llm calls',
        count(s.llm_calls) +
          (s.abandoned_calls > 0
            ? ` (${count(s.abandoned_calls)} answered in turns that then failed: abandoned)`
            : '') +
          (s.probe_calls > 0 ? ` (${count(s.probe_calls)} belief probe${s.probe_calls === 1 ? '' : 's'})` : ''),
      ],
      ['tokens', `${count(s.input_tokens)} input, ${count(s.output_tokens)} output`],
      ['cost', describeCost(s, llm)],
      [
        'model calls',
        `${llm.calls.truncated_calls} cut by the output cap, ${llm.calls.reasoning_calls} with reasoning, ` +
          `${llm.calls.estimate_off_calls} estimated >10% off, ${llm.calls.text_tool_calls} tool calls read from text`,
      ],
      ['source', describeSource(llm.provenance)],
    ],
  };
}

const NO_MARKS: RunMarks = {
  simulated: false,
  truncated_calls: 0,
  replayed_requests: 0,
  cached_requests: 0,
  replay_of: null,
  forked_from: null,
  fork_step: null,
};

/** What the flight recorder answered instead of a server, and the run this one repeats: none for most runs. */
function recordRows(m: RunMarks): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  if (m.replay_of) rows.push(['replay of', `${m.replay_of} (its model calls answered from that run's record)`]);
  if (m.forked_from) rows.push(['fork of', `${m.forked_from} after step ${m.fork_step} (steps up to it are its)`]);
  const from = [
    m.replayed_requests > 0 ? `${m.replayed_requests} replayed` : '',
    m.cached_requests > 0 ? `${m.cached_requests} from the cache` : '',
  ].filter(Boolean);
  if (from.length > 0) rows.push(['from the record', `${from.join(', ')} model request(s): no server asked, no spend`]);
  return rows;
}

/**
 * The belief probes' means (results/belief-probes.ts), in three lines: what they are over is said, a malformed
 * answer counting 0, a failed or skipped probe in no mean.
 */
function probeRows(t: BeliefProbeTotals): Array<[string, string]> {
  const f = (x: number | null, digits: number) => (x === null ? '-' : x.toFixed(digits));
  const apart = (['malformed', 'failed', 'skipped'] as const).filter((k) => t[k] > 0).map((k) => `${t[k]} ${k}`);
  const unanswered = t.failed + t.skipped;
  return [
    [
      'belief maps',
      `${t.asked} probe${t.asked === 1 ? '' : 's'}${apart.length > 0 ? ` (${apart.join(', ')})` : ''}: ` +
        `cells ${f(t.cell_accuracy, 3)} right (walls ${f(t.wall_accuracy, 3)}, open ${f(t.open_accuracy, 3)}) ` +
        'of those shown',
    ],
    [
      '',
      `${f(t.claimed_unshown, 1)} cells claimed unseen a probe; position off by ${f(t.position_error, 2)} ` +
        `(${t.positions_given} gave one)`,
    ],
    [
      '',
      `means of the ${t.answered} answered, each the same weight` +
        (t.malformed > 0 ? ', a malformed one scoring 0' : '') +
        (unanswered > 0 ? `; the ${unanswered} failed or skipped left out` : ''),
    ],
  ];
}

/** Who played a run without a model: a baseline, or a person (agent human) with the player and the suite maze. */
function whoRows(s: ExperimentSummary): Array<[string, string]> {
  if (s.player === null) return [['agent', s.agent]];
  return [
    ['agent', `${s.agent} (a person: player ${s.player})`],
    ...(s.suite !== null ? [['suite maze', `${s.suite} maze ${s.suite_maze}`] as [string, string]] : []),
    ['prompt', s.prompt_version ?? '-'],
  ];
}

function printSummary(
  s: ExperimentSummary,
  story: AgentStory,
  llm: LlmDetails | null,
  marks: RunMarks,
  probes: BeliefProbeTotals | null,
  out: NodeJS.WritableStream,
) {
  const extra = llm ? llmRows(s, llm) : null;
  const rows: Array<[string, string]> = [
    ['experiment', s.experiment_id],
    ...(marks.simulated
      ? [['simulated', 'yes: a bundled simulator answered its model calls, not the model named'] as [string, string]]
      : []),
    ...(marks.truncated_calls > 0
      ? [
          ['cut prompts', `${marks.truncated_calls} call(s) cut to the context window by the server`] as [
            string,
            string,
          ],
        ]
      : []),
    ...recordRows(marks),
    [
      'status',
      `${s.status}${s.stop_reason ? ` (${s.stop_reason})` : ''}${s.failure_reason ? `: ${s.failure_reason}` : ''}`,
    ],
    ['goal found', s.goal_found ? 'yes' : 'no'],
    ...(extra ? extra.who : whoRows(s)),
    ['maze', `${s.maze_generator} ${s.maze_width}x${s.maze_height} seed ${s.maze_seed ?? '-'}`],
    ['actions', String(s.actions)],
    ['optimal', String(s.optimal_moves)],
    ['efficiency', s.efficiency === null ? '-' : Number(s.efficiency).toFixed(3)],
    ['turns', String(s.turns)],
    ...(extra ? extra.usage : []),
    ...(probes ? probeRows(probes) : []),
    ['tiles seen', String(s.tiles_seen)],
    ['failed moves', String(s.failed_moves)],
    ['duration', `${Number(s.wall_seconds).toFixed(2)} s`],
    ['phase', `${s.agent_phase} (stuck policy: ${s.stuck_policy})`],
    ['stuck', describeStuck(s, countSignals(story.signals))],
  ];
  for (const line of describePhases(story, s.actions)) rows.push(['', line]);
  out.write(`\n${rows.map(([k, v]) => `${k.padEnd(12)} ${v}`.trimEnd()).join('\n')}\n`);
}

/** How the run moved (reports/behaviour.ts): loops, bumps, revisits, coverage, the frontier, where it stalled. */
function printBehaviour(b: RunBehaviour, out: NodeJS.WritableStream): void {
  const lines = runBehaviourLines(b).map((line, i) => `${(i === 0 ? 'behaviour' : '').padEnd(12)} ${line}`);
  out.write(`${lines.join('\n')}\n`);
}

/** The commands a researcher is likely to want after reading a summary, as this user runs the CLI. */
function printNextCommands(s: ExperimentSummary, out: NodeJS.WritableStream): void {
  const p = commandPrefix();
  const id = s.experiment_id;
  const hints: Array<[string, string]> = [
    ...(s.status === 'running' ? [[`${p} resume ${id}`, 'continue it from its next turn'] as [string, string]] : []),
    [`${p} replay ${id}`, 'a step-by-step HTML replay'],
    [`${p} summary ${id} --json`, 'this summary with every signal, as JSON'],
    [`${p} list`, 'your experiments, newest first'],
    [`${p} view`, 'every run in a browser: live, compare, search'],
  ];
  const width = Math.max(...hints.map(([c]) => c.length));
  out.write(
    `\n${hints.map(([c, why], i) => `${i === 0 ? 'next:' : '     '} ${c.padEnd(width)}   (${why})`).join('\n')}\n`,
  );
}

/**
 * The summary with the agent's phases and stuck signals counted by kind, then the next commands to try; or (with
 * `json`) one JSON object on stdout with every signal and the counts.
 */
export async function showSummary(db: Sql, s: ExperimentSummary, json: boolean): Promise<void> {
  const story = await agentStoryOf(db, s.experiment_id, s.actions);
  // a baseline and a person call no model
  const llm = s.provider === 'baseline' || s.provider === 'human' ? null : await llmDetailsOf(db, s);
  const marks = (await runMarksOf(db, s.experiment_id)) ?? NO_MARKS;
  const probes = s.provider === 'baseline' ? [] : await beliefProbesOf(db, s.experiment_id);
  const probeTotals = beliefProbeTotals(probes);
  const behaviour = (await loadBehaviours(db, [s.experiment_id])).get(s.experiment_id) ?? null;
  if (json) {
    const detail = {
      ...s,
      // a bundled simulator answered a call; calls whose PROMPT the server cut (model_calls.truncated_calls: the
      // replies cut by the output cap)
      simulated: marks.simulated,
      truncated_calls: marks.truncated_calls,
      // the flight recorder: what answered instead of a server (these calls spent nothing), and the run repeated
      replayed_requests: marks.replayed_requests,
      cached_requests: marks.cached_requests,
      replay_of: marks.replay_of,
      forked_from: marks.forked_from,
      fork_step: marks.fork_step,
      workflow: llm?.workflow ?? null,
      // null cost with price_known false: the model has no price (unknown), never a zero cost
      price_known: llm ? llm.priced : null,
      model_calls: llm?.calls ?? null,
      provenance: llm?.provenance ?? null,
      signal_counts: Object.fromEntries(countSignals(story.signals)),
      phases: story.phases,
      signals: story.signals,
      // what the model believed the maze to be, every belief_probe_every turns: null when it was never asked
      belief_probes: probeTotals ? { ...probeTotals, probes } : null,
      // how it moved: loops (MazeEval's 10 entries), bumps, revisits, coverage by step, the frontier on its maze
      behaviour,
    };
    process.stdout.write(`${JSON.stringify(detail, null, 2)}\n`);
    return;
  }
  printSummary(s, story, llm, marks, probeTotals, process.stdout);
  if (behaviour) printBehaviour(behaviour, process.stdout);
  printNextCommands(s, process.stdout);
}
