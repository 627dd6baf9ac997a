// One machine-readable line per observation and per tool result (position and
// the rays in view; under see-through vision also the square's other tiles),
// for test simulators and for models that prefer JSON.
import type { Observation } from '../../../engine/agent.ts';
import type { ActionResult, SeenTile } from '../../../engine/game.ts';
import type { Point } from '../../../maze/grid.ts';
import { groupTiles, offRays, rays, recalledText, withAgentState } from './common.ts';

/** view, and also_in_sight when there is more in sight than the rays show (see_through). */
function sight(at: Point, seen: readonly SeenTile[], seeThrough: boolean): Record<string, unknown> {
  const off = offRays(at, seen);
  return seeThrough || off.length > 0
    ? { view: rays(at, seen), also_in_sight: groupTiles(off) }
    : { view: rays(at, seen) };
}

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
          ...sight(obs.position, obs.visible, obs.config.see_through),
        }),
      ],
      obs,
    ).join('\n'),
  result: (r: ActionResult, obs: Observation): string => {
    const payload: Record<string, unknown> = { ok: r.success, result: r.message, position: [r.to.x, r.to.y] };
    if (r.executed) Object.assign(payload, sight(r.to, r.vision, obs.config.see_through));
    if (r.recalled) payload.recalled = recalledText(r.recalled);
    if (r.goalFound) payload.goal_found = true;
    return JSON.stringify(payload);
  },
};
