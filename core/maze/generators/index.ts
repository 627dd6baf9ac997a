// The generator registry and the placement every generator shares.
import { EMPTY, GOAL, WALL, type Grid, type Point } from '../grid.ts';
import { buildMaze, REFERENCE_VISION, type Maze } from '../maze.ts';
import { visibleCells } from '../vision.ts';
import { MazeInputError } from '../errors.ts';
import { createRng, mixSeed, type Rng } from '../rng.ts';
import { distancesFrom, UNREACHABLE } from '../solver.ts';
import { densityField, diagonalBias, openField, randomScatter } from './obstacle-fields.ts';
import { multiplePaths, perfect, roomsAndCorridors, spiral } from './structured.ts';
import type { LayoutFn } from './types.ts';

interface GeneratorInfo {
  description: string;
  layout: LayoutFn;
  oddSizes?: boolean;
}

const GENERATORS = {
  sparse: { description: 'random walls, 10% density', layout: densityField(0.1) },
  light: { description: 'random walls, 20% density', layout: densityField(0.2) },
  medium: { description: 'random walls, 30% density', layout: densityField(0.3) },
  dense: { description: 'random walls, 40% density', layout: densityField(0.4) },
  very_dense: { description: 'random walls, 50% density', layout: densityField(0.5) },
  extreme: { description: 'random walls, 60% density', layout: densityField(0.6) },
  open_field: { description: 'almost empty, 3% single obstacles', layout: openField },
  spiral: { description: 'one corridor winding into the centre, goal at the centre', layout: spiral },
  rooms_and_corridors: { description: 'rooms 3-6 cells wide joined by doors', layout: roomsAndCorridors },
  multiple_paths: {
    description: 'perfect maze with ~10% of walls removed: loops and several routes',
    layout: multiplePaths,
    oddSizes: true,
  },
  diagonal_bias: { description: 'wall streaks running diagonally, ~30% walls', layout: diagonalBias },
  random_scatter: { description: 'walls in small clusters, ~25% walls', layout: randomScatter },
  perfect: {
    description: 'recursive-backtracker maze: exactly one route between any two cells',
    layout: perfect,
    oddSizes: true,
  },
} satisfies Record<string, GeneratorInfo>;

export type GeneratorName = keyof typeof GENERATORS;
export const GENERATOR_NAMES = Object.keys(GENERATORS) as GeneratorName[];
export const MIN_SIZE = 5;
export const MAX_SIZE = 201;
const DEFAULT_START: Point = { x: 1, y: 1 };

export interface MazeSpec {
  generator: string;
  width: number;
  height: number;
  seed: number;
}

export function describeGenerator(name: GeneratorName): { description: string; oddSizes: boolean } {
  const info: GeneratorInfo = GENERATORS[name];
  return { description: info.description, oddSizes: info.oddSizes === true };
}

/** Throws MazeInputError naming the field, the value and the valid choices. */
export function checkMazeSpec(spec: MazeSpec): asserts spec is MazeSpec & { generator: GeneratorName } {
  if (!(spec.generator in GENERATORS)) {
    throw new MazeInputError(
      'maze',
      spec.generator,
      `unknown maze generator "${spec.generator}"; choose one of: ${GENERATOR_NAMES.join(', ')}`,
    );
  }
  for (const [field, value] of [
    ['width', spec.width],
    ['height', spec.height],
  ] as const) {
    if (!Number.isInteger(value) || value < MIN_SIZE || value > MAX_SIZE) {
      throw new MazeInputError(
        field === 'width' ? 'size' : field,
        value,
        `maze ${field} must be a whole number from ${MIN_SIZE} to ${MAX_SIZE}, got ${value}`,
      );
    }
    if (describeGenerator(spec.generator as GeneratorName).oddSizes && value % 2 === 0) {
      throw new MazeInputError(
        field === 'width' ? 'size' : field,
        value,
        `generator "${spec.generator}" needs an odd ${field}, got ${value}; use ${value - 1} or ${value + 1}`,
      );
    }
  }
  if (!Number.isSafeInteger(spec.seed) || spec.seed < 0 || spec.seed > 0xffffffff) {
    throw new MazeInputError('seed', spec.seed, `seed must be a whole number from 0 to 4294967295, got ${spec.seed}`);
  }
}

const ATTEMPTS = 20;

/** Same generator + size + seed gives the same maze, byte for byte, on any machine. */
export function generateMaze(spec: MazeSpec): Maze {
  checkMazeSpec(spec);
  const info: GeneratorInfo = GENERATORS[spec.generator];
  // A layout that leaves no good goal cell is redrawn with a derived seed, so
  // the result stays a pure function of the spec.
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const rng = createRng(mixSeed(spec.generator, spec.width, spec.height, spec.seed, attempt));
    const layout = info.layout(spec.width, spec.height, rng, DEFAULT_START);
    const start = layout.start ?? DEFAULT_START;
    layout.grid.set(start.x, start.y, EMPTY);
    const goal = layout.goal ?? placeGoal(layout.grid, start, rng);
    if (!goal) continue;
    layout.grid.set(goal.x, goal.y, GOAL);
    return buildMaze(layout.grid, start, spec.generator, spec.seed);
  }
  throw new MazeInputError(
    'seed',
    spec.seed,
    `generator "${spec.generator}" found no goal placement ` +
      `for ${spec.width}x${spec.height} seed ${spec.seed}; try another seed`,
  );
}

/**
 * A seeded pick among reachable cells in the farthest quarter of BFS distance
 * that the start cannot see under the reference vision (so no run is won at step 0).
 */
function placeGoal(grid: Grid, start: Point, rng: Rng): Point | null {
  const dist = distancesFrom(grid, start);
  const inView = new Set(visibleCells(grid, start, REFERENCE_VISION));
  let max = 0;
  for (const d of dist) if (d > max) max = d;
  const candidates: Point[] = [];
  for (let y = 0; y < grid.height; y++)
    for (let x = 0; x < grid.width; x++) {
      const d = dist[grid.index(x, y)];
      if (d === UNREACHABLE || d < max * 0.75 || grid.get(x, y) === WALL) continue;
      if (inView.has(grid.index(x, y))) continue;
      candidates.push({ x, y });
    }
  return candidates.length > 0 ? rng.pick(candidates) : null;
}
