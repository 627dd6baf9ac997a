// The order a sweep starts its runs in, the same locally (state-machine/local-sweep.ts) and on AWS
// (machine/sweep-machine-input.ts), so a sweep cut short leaves a balanced subset: repeat-major; within a repeat,
// maze by maze in a seeded shuffle (the maze is the unit of replication, so a cut leaves whole mazes); within a maze,
// settings then agents, each order seeded and rotated by one at each maze so no agent is always first. A pure
// function of the sweep's name and cells: reproducible, and a grown sweep's new cells fall into place.
import { createRng, mixSeed, type Rng } from '../maze/rng.ts';
import type { SweepRun } from './sweep-spec.ts';

type Cell = SweepRun['cell'];

/** A cell's maze and setting combination as keys, computed once per cell. */
function cellKeys(runs: readonly SweepRun[]): (c: Cell) => { maze: string; setting: string } {
  const keys = new Map<Cell, { maze: string; setting: string }>();
  for (const { cell: c } of runs)
    if (!keys.has(c)) keys.set(c, { maze: `${c.generator} ${c.size} ${c.seed}`, setting: JSON.stringify(c.settings) });
  return (c) => keys.get(c)!;
}

/** The distinct keys, sorted (so the file's listing order does not matter), then shuffled by `rng`. */
function shuffled(keys: Iterable<string>, rng: Rng): string[] {
  return rng.shuffle([...new Set(keys)].sort());
}

const rotated = <T>(items: readonly T[], by: number): T[] =>
  items.length === 0 ? [] : items.map((_, i) => items[(i + by) % items.length]);

/** The mazes (`generator size seed`) in the order a sweep of that name takes them in its first repeat. */
export function mazeOrder(sweep: string, mazes: Iterable<string>): string[] {
  return shuffled(mazes, createRng(mixSeed(sweep, 'mazes', 1)));
}

/**
 * The runs in the order a sweep starts them (the rule above); `sweep` is the sweep's name, its seed. `mazeMajor`
 * (a sweep with stop_when) takes each maze's runs of every repeat together, the mazes in mazeOrder, so that a maze's
 * difference is known as soon as possible and the mazes are judged in an order fixed before any run.
 */
export function sweepRunOrder<R extends SweepRun>(sweep: string, runs: readonly R[], mazeMajor = false): R[] {
  if (mazeMajor) return mazeMajorOrder(sweep, runs);
  const byRepeat = new Map<number, R[]>();
  for (const r of runs) {
    const list = byRepeat.get(r.repeat);
    if (list) list.push(r);
    else byRepeat.set(r.repeat, [r]);
  }
  const key = cellKeys(runs);
  const cells = [...new Set(runs.map((r) => r.cell))];
  const agentOrder = shuffled(
    cells.map((c) => c.label),
    createRng(mixSeed(sweep, 'agents')),
  );
  const settingOrder = shuffled(
    cells.map((c) => key(c).setting),
    createRng(mixSeed(sweep, 'settings')),
  );
  const out: R[] = [];
  for (const repeat of [...byRepeat.keys()].sort((a, b) => a - b)) {
    const inRepeat = byRepeat.get(repeat)!;
    const byCell = new Map(inRepeat.map((r) => [`${key(r.cell).maze}|${key(r.cell).setting}|${r.cell.label}`, r]));
    const mazes = shuffled(
      inRepeat.map((r) => key(r.cell).maze),
      createRng(mixSeed(sweep, 'mazes', repeat)),
    );
    mazes.forEach((maze, m) => {
      for (const setting of rotated(settingOrder, m))
        for (const label of rotated(agentOrder, m)) {
          const run = byCell.get(`${maze}|${setting}|${label}`);
          if (run) out.push(run);
        }
    });
  }
  return out;
}

/** Maze by maze in mazeOrder; within a maze, repeat by repeat in the order above. */
function mazeMajorOrder<R extends SweepRun>(sweep: string, runs: readonly R[]): R[] {
  const key = cellKeys(runs);
  const ordered = sweepRunOrder(sweep, runs);
  const rank = new Map(
    mazeOrder(
      sweep,
      runs.map((r) => key(r.cell).maze),
    ).map((m, i) => [m, i]),
  );
  const position = new Map(ordered.map((r, i) => [r, i]));
  const at = (r: R) => [rank.get(key(r.cell).maze)!, r.repeat, position.get(r)!];
  return ordered.sort((x, y) => {
    const [a, b] = [at(x), at(y)];
    return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
  });
}
