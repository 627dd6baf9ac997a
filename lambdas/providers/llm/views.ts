// What the model reads: the turn-start observation and each tool result, as
// short text plus one JSON line with the same facts (position and what is in
// view per direction), so answers can be checked and simulators can play.
import type { Observation } from '../../engine/agent.ts';
import type { AgentStateView } from '../../engine/agent-monitor.ts';
import type { ActionResult, SeenTile } from '../../engine/game.ts';
import { DIRECTIONS, DIRECTION_NAMES, type Point } from '../../maze/grid.ts';

const CHAR = ['.', '#', 'G'];

/** Per direction, the tiles along the ray from the agent outwards, e.g. {north: "..#"}. */
function rays(at: Point, seen: SeenTile[]): Record<string, string> {
  const byCell = new Map(seen.map(([x, y, t]) => [`${x},${y}`, CHAR[t] ?? '?']));
  const out: Record<string, string> = {};
  for (const name of DIRECTION_NAMES) {
    let line = '';
    for (let d = 1; ; d++) {
      const ch = byCell.get(`${at.x + DIRECTIONS[name].dx * d},${at.y + DIRECTIONS[name].dy * d}`);
      if (ch === undefined) break;
      line += ch;
    }
    out[name] = line;
  }
  return out;
}

export function describeObservation(obs: Observation, maxMoves: number): string {
  const view = rays(obs.position, obs.visible);
  const lines = [
    `Turn ${obs.turnNumber}. Actions taken so far: ${obs.actionsTaken} of ${maxMoves}.`,
    `You are at (${obs.position.x},${obs.position.y}).`,
    ...DIRECTION_NAMES.map((d) => `${d}: ${view[d] === '' ? 'edge of the maze' : view[d]}`),
    `You may take up to ${obs.actionsLeftInTurn} actions this turn.`,
    `STATE ${JSON.stringify({
      turn: obs.turnNumber,
      actions: obs.actionsTaken,
      position: [obs.position.x, obs.position.y],
      view,
    })}`,
  ];
  if (obs.agentState) lines.push('', describeAgentState(obs.agentState));
  return lines.join('\n');
}

/** The `advise` policy's section, at the end of the turn's first message. */
function describeAgentState(s: AgentStateView): string {
  const lines = [
    '## Agent State',
    `Phase: ${s.phase} (for ${s.actionsInPhase} actions, ${s.turnsInPhase} turns)`,
    `Status: ${s.healthy ? 'HEALTHY' : 'STUCK'}`,
  ];
  for (const d of s.detected) lines.push(`Detected (${d.detector}): ${d.detail}`, `Advice: ${d.advice}`);
  return lines.join('\n');
}

export function describeResult(r: ActionResult): string {
  const payload: Record<string, unknown> = { ok: r.success, result: r.message, position: [r.to.x, r.to.y] };
  if (r.executed) payload.view = rays(r.to, r.vision);
  if (r.recalled) payload.recalled = r.recalled.map(([x, y, t]) => `${x},${y}${CHAR[t]}`).join(' ');
  if (r.goalFound) payload.goal_found = true;
  return JSON.stringify(payload);
}
