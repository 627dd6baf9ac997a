// One machine-readable line per observation and per tool result (position and
// the rays in view), for test simulators and for models that prefer JSON.
import type { Observation } from '../../../engine/agent.ts';
import type { ActionResult } from '../../../engine/game.ts';
import { rays, recalledText, withAgentState } from './common.ts';

export const jsonFormat = {
  observation: (obs: Observation, maxMoves: number): string =>
    withAgentState(
      [
        JSON.stringify({
          turn: obs.turnNumber,
          actions: obs.actionsTaken,
          max_moves: maxMoves,
          actions_left_in_turn: obs.actionsLeftInTurn,
          position: [obs.position.x, obs.position.y],
          view: rays(obs.position, obs.visible),
        }),
      ],
      obs,
    ).join('\n'),
  result: (r: ActionResult): string => {
    const payload: Record<string, unknown> = { ok: r.success, result: r.message, position: [r.to.x, r.to.y] };
    if (r.executed) payload.view = rays(r.to, r.vision);
    if (r.recalled) payload.recalled = recalledText(r.recalled);
    if (r.goalFound) payload.goal_found = true;
    return JSON.stringify(payload);
  },
};
