// What the `image` observation format's pictures look like: the prompt describes them (prompt-parts.ts) and the
// renderer draws them (providers/llm/observations/view-image.ts) from this one table, so the two cannot disagree.

/** Pixels a tile: enough for a vision model to tell tiles apart, small enough to cost few image tokens. */
export const CELL_PX = 24;

/** RGB colours, as the prompt names them: black wall, white open, green goal, gray out of sight, a red dot you. */
export const PALETTE = {
  open: [255, 255, 255],
  wall: [0, 0, 0],
  goal: [34, 170, 34],
  unseen: [150, 150, 150],
  agent: [220, 30, 30],
  /** A one-pixel line on each tile's north and west edge, so that tiles can be counted. */
  grid: [205, 205, 205],
} as const satisfies Record<string, readonly [number, number, number]>;
