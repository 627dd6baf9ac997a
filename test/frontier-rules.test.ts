// frontierSearch's contract: over what the agent knows only, the first move
// and length of a shortest known route to the nearest frontier (a known open
// cell next to an unknown one), or to the goal once the goal is known.
import { describe, expect, it } from 'vitest';
import { frontierSearch } from '../core/engine/frontier.ts';
import { UNKNOWN } from '../core/engine/game.ts';

/** A known map from rows of '.' open, '#' wall, 'G' goal, '?' unknown. */
function known(rows: string[]) {
  const width = rows[0].length;
  const cells = new Uint8Array(
    rows.flatMap((r) => [...r].map((c) => ({ '.': 0, '#': 1, G: 2, '?': UNKNOWN })[c] ?? UNKNOWN)),
  );
  return { width, height: rows.length, cells };
}

describe('frontierSearch', () => {
  it('walks known open cells to the nearest cell next to unknown ground', () => {
    const map = known([
      '.....', //
      '.###.',
      '....?',
    ]);
    // from (0,0) both cells bordering the unknown (4,2) are 5 moves away: (4,1) east then south,
    // (3,2) south then east; breadth-first in N, S, E, W order reaches (3,2) first
    expect(frontierSearch(map, { x: 0, y: 0 })).toEqual({ direction: 'south', distance: 5 });
    expect(frontierSearch(map, { x: 2, y: 0 })).toEqual({ direction: 'east', distance: 3 });
  });

  it('goes for the goal once it is known, even past a nearer frontier', () => {
    const map = known([
      '?....', //
      '....G',
    ]);
    expect(frontierSearch(map, { x: 2, y: 0 })).toEqual({ direction: 'south', distance: 3 });
    expect(frontierSearch(map, { x: 3, y: 1 })).toEqual({ direction: 'east', distance: 1 });
  });

  it('never walks through walls or unknown cells; null when nothing is reachable', () => {
    const map = known([
      '..#..', //
      '..#.?',
    ]);
    expect(frontierSearch(map, { x: 0, y: 0 })).toBeNull();
    expect(frontierSearch(map, { x: 3, y: 0 })).toEqual({ direction: 'south', distance: 1 });
    // the unknown (1,1) makes (1,0) a target one move away; the route never enters it
    const gap = known([
      '...', //
      '#?#',
      '...',
    ]);
    expect(frontierSearch(gap, { x: 0, y: 0 })).toEqual({ direction: 'east', distance: 1 });
  });

  it('the start is not a target even when it borders unknown ground', () => {
    const map = known([
      '?..', //
      '...',
    ]);
    // (1,0) and (0,1) border the unknown (0,0); from (1,0) itself the nearest other one is (0,1)
    expect(frontierSearch(map, { x: 1, y: 1 })).toEqual({ direction: 'north', distance: 1 });
    expect(frontierSearch(map, { x: 1, y: 0 })).toEqual({ direction: 'south', distance: 2 });
  });

  it('answers null when no target is nearer than `below`', () => {
    const map = known([
      '....?', //
    ]);
    // the frontier (3,0) is 3 moves away
    expect(frontierSearch(map, { x: 0, y: 0 }, 3)).toBeNull();
    expect(frontierSearch(map, { x: 0, y: 0 }, 4)).toEqual({ direction: 'east', distance: 3 });
    expect(frontierSearch(map, { x: 0, y: 0 })).toEqual({ direction: 'east', distance: 3 });
  });

  it('gives the same answers however many searches ran before, on maps of any size', () => {
    const a = known(['...?', '....']);
    const b = known(['.....?', '......', '......']);
    const first = frontierSearch(a, { x: 0, y: 1 });
    for (let k = 0; k < 50; k++) frontierSearch(k % 2 ? a : b, { x: 0, y: 0 });
    for (let size = 2; size < 14; size++) frontierSearch(known(['.'.repeat(size) + '?']), { x: 0, y: 0 });
    expect(frontierSearch(a, { x: 0, y: 1 })).toEqual(first);
    expect(first).toEqual({ direction: 'north', distance: 3 });
  });
});
