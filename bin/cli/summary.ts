// The end-of-run summary a researcher reads first.
import type { ExperimentSummary } from '../../state-machine/local-experiment.ts';

export function printSummary(s: ExperimentSummary, out: NodeJS.WritableStream = process.stdout): void {
  const rows: Array<[string, string]> = [
    ['experiment', s.experiment_id],
    ['status', `${s.status}${s.stop_reason ? ` (${s.stop_reason})` : ''}${s.failure_reason ? `: ${s.failure_reason}` : ''}`],
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
  ];
  out.write(`\n${rows.map(([k, v]) => `${k.padEnd(12)} ${v}`).join('\n')}\n`);
}
