// What a run under the image observation format showed its model, drawn again from the stored state and checked
// against the hashes each model call recorded (llm_calls.image_sha256, migration 024). A call's pictures are the
// turn's first view (call 0: the turn's start position, its vision worked out from the maze as the engine does) or
// the views after the previous reply's executed actions (their stored position and vision), in that order.
import type { Sql } from '../core/store/sql.ts';
import { unpackCells } from '../core/maze/packed-grid.ts';
import { visibleCells } from '../core/maze/vision.ts';
import type { SeenTile } from '../core/engine/game.ts';
import { viewPicture } from '../core/providers/llm/observations/image.ts';
import type { ViewImage } from '../core/providers/llm/observations/view-image.ts';

interface ShownPicture {
  /** The action whose view it is (its global step); null for a turn's first view. */
  step: number | null;
  x: number;
  y: number;
  /** The hash the call recorded for it; null when the call recorded fewer pictures than it should have. */
  recorded: string | null;
  image: ViewImage;
  /** Drawn again, it hashes to what the call recorded. */
  matches: boolean;
}

export interface CallPictures {
  turn: number;
  call: number;
  pictures: ShownPicture[];
  /** Hashes the call recorded beyond the pictures drawn again (none when all is well). */
  unexplained: string[];
}

interface ActionRow {
  call_index: number;
  step_number: number | null;
  executed: boolean;
  to_x: number;
  to_y: number;
  vision: SeenTile[];
}

/**
 * One turn's model calls with their pictures, or null when the experiment does not exist or did not show pictures
 * (its observation format is not image).
 */
export async function turnPictures(db: Sql, experimentId: string, turn: number): Promise<CallPictures[] | null> {
  const { rows: exp } = await db.query<{
    config: { observation?: string; vision_range: number; see_through: boolean };
    width: number;
    height: number;
    cells: string;
    start_x: number;
    start_y: number;
  }>(
    `SELECT e.config, m.width, m.height, m.cells, m.start_x, m.start_y
     FROM experiments e JOIN mazes m ON m.id = e.maze_id WHERE e.id = $1`,
    [experimentId],
  );
  const e = exp[0];
  if (!e || e.config.observation !== 'image') return null;
  const [calls, actions, before] = await Promise.all([
    db.query<{ call_index: number; first_action_index: number | null; image_sha256: string[] | null }>(
      `SELECT call_index, first_action_index, image_sha256 FROM llm_calls
       WHERE experiment_id = $1 AND turn_number = $2 ORDER BY call_index`,
      [experimentId, turn],
    ),
    db.query<ActionRow>(
      `SELECT call_index, step_number, executed, to_x, to_y, vision FROM actions
       WHERE experiment_id = $1 AND turn_number = $2 ORDER BY call_index`,
      [experimentId, turn],
    ),
    db.query<{ x: number; y: number }>(
      `SELECT position_x_after AS x, position_y_after AS y FROM turns
       WHERE experiment_id = $1 AND turn_number = $2 - 1`,
      [experimentId, turn],
    ),
  ]);
  const grid = unpackCells(e.cells, e.width, e.height);
  const sight = { config: e.config, known: { width: e.width, height: e.height } };
  const start = before.rows[0] ?? { x: e.start_x, y: e.start_y };
  // the engine's own view at the turn's start (engine/turn.ts: visibleCells at the position, as tiles)
  const startSeen: SeenTile[] = visibleCells(grid, start, {
    range: e.config.vision_range,
    seeThrough: e.config.see_through,
  }).map((i) => [i % e.width, Math.floor(i / e.width), grid.cells[i]] as SeenTile);
  // each reply's actions: from its first action to the next reply's first
  const firsts = calls.rows.map((c) => c.first_action_index);
  const actionsOf = (call: number): ActionRow[] => {
    const from = firsts[call];
    if (from === null || from === undefined) return [];
    const next = firsts.slice(call + 1).find((f): f is number => f !== null) ?? Number.MAX_SAFE_INTEGER;
    return actions.rows.filter((a) => a.call_index >= from && a.call_index < next);
  };
  return calls.rows.map((c, i) => {
    const shown =
      i === 0
        ? [{ step: null, x: start.x, y: start.y, seen: startSeen }]
        : actionsOf(i - 1)
            .filter((a) => a.executed)
            .map((a) => ({ step: a.step_number, x: a.to_x, y: a.to_y, seen: a.vision }));
    const recorded = c.image_sha256 ?? [];
    return {
      turn,
      call: c.call_index,
      pictures: shown.map((p, k) => {
        const image = viewPicture({ x: p.x, y: p.y }, p.seen, sight);
        return {
          step: p.step,
          x: p.x,
          y: p.y,
          recorded: recorded[k] ?? null,
          image,
          matches: recorded[k] === image.sha256,
        };
      }),
      unexplained: recorded.slice(shown.length),
    };
  });
}
