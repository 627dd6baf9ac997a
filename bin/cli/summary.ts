// The end-of-run summary a researcher reads first.
import { agentStoryOf, type AgentStory, type ExperimentSummary } from '../../state-machine/local-experiment.ts';
import type { Database } from '../../lambdas/store/database.ts';

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

function printSummary(s: ExperimentSummary, out: NodeJS.WritableStream = process.stdout, story?: AgentStory): void {
  const rows: Array<[string, string]> = [
    ['experiment', s.experiment_id],
    [
      'status',
      `${s.status}${s.stop_reason ? ` (${s.stop_reason})` : ''}${s.failure_reason ? `: ${s.failure_reason}` : ''}`,
    ],
    ['goal found', s.goal_found ? 'yes' : 'no'],
    ['agent', s.agent],
    ['maze', `${s.maze_generator} ${s.maze_width}x${s.maze_height} seed ${s.maze_seed ?? '-'}`],
    ['actions', String(s.actions)],
    ['optimal', String(s.optimal_moves)],
    ['efficiency', s.efficiency === null ? '-' : Number(s.efficiency).toFixed(3)],
    ['turns', String(s.turns)],
    ['tiles seen', String(s.tiles_seen)],
    ['failed moves', String(s.failed_moves)],
    ['duration', `${Number(s.wall_seconds).toFixed(2)} s`],
    ['phase', `${s.agent_phase} (stuck policy: ${s.stuck_policy})`],
    [
      'stuck',
      s.stuck_signals === 0
        ? 'no signal'
        : `${s.stuck_signals} signal(s), first ${s.first_stuck_detector} at action ${s.first_stuck_step}`,
    ],
  ];
  if (story) {
    for (const line of describePhases(story, s.actions)) rows.push(['', line]);
    for (const g of story.signals)
      rows.push(['', `signal at action ${g.step} (turn ${g.turn}): ${g.detector}: ${g.detail}`]);
  }
  out.write(`\n${rows.map(([k, v]) => `${k.padEnd(12)} ${v}`).join('\n')}\n`);
}

/** The summary with the agent's phases and stuck signals, as text or (with `json`) one JSON object on stdout. */
export async function showSummary(db: Database, s: ExperimentSummary, json: boolean): Promise<void> {
  const story = await agentStoryOf(db, s.experiment_id, s.actions);
  if (json)
    process.stdout.write(`${JSON.stringify({ ...s, phases: story.phases, signals: story.signals }, null, 2)}\n`);
  else printSummary(s, process.stdout, story);
}
