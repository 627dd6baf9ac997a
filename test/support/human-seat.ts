// A person for tests of the human agent: a seat that answers from a script of typed commands (as `ariadne play`
// reads them) and keeps every prompt it was shown; and the moves that walk a maze's shortest path to its goal.
import { parseCommand, type HumanMove, type HumanPrompt, type HumanSeat } from '../../core/providers/human-agent.ts';
import { DIRECTIONS, WALL, type Direction } from '../../core/maze/grid.ts';
import type { Maze } from '../../core/maze/maze.ts';

export interface ScriptedSeat extends HumanSeat {
  readonly prompts: HumanPrompt[];
}

/** Answers each prompt with the next command of `commands`; gives up once they run out. */
export function scriptedSeat(commands: string[], player = 'tester'): ScriptedSeat {
  const left = [...commands];
  const prompts: HumanPrompt[] = [];
  return {
    player,
    playedIn: 'terminal',
    prompts,
    next(prompt: HumanPrompt): Promise<HumanMove> {
      prompts.push(prompt);
      for (;;) {
        const line = left.shift();
        if (line === undefined) return Promise.resolve({ giveUp: true });
        const c = parseCommand(line);
        if (c.kind === 'give-up') return Promise.resolve({ giveUp: true });
        if (c.kind === 'call') return Promise.resolve({ call: c.call });
      }
    },
  };
}

const LETTER: Record<Direction, string> = { north: 'n', south: 's', east: 'e', west: 'w' };

/** The commands (n, s, e, w) of a shortest path from the maze's start to its goal (breadth first). */
export function pathToGoal(maze: Maze): string[] {
  const { grid, start, goal } = maze;
  const key = (x: number, y: number) => y * grid.width + x;
  const from = new Map<number, { prev: number; dir: Direction }>();
  const queue = [start];
  const seen = new Set([key(start.x, start.y)]);
  while (queue.length > 0) {
    const at = queue.shift()!;
    if (at.x === goal.x && at.y === goal.y) break;
    for (const [dir, { dx, dy }] of Object.entries(DIRECTIONS) as Array<[Direction, { dx: number; dy: number }]>) {
      const x = at.x + dx,
        y = at.y + dy;
      if (!grid.inBounds(x, y) || grid.get(x, y) === WALL || seen.has(key(x, y))) continue;
      seen.add(key(x, y));
      from.set(key(x, y), { prev: key(at.x, at.y), dir });
      queue.push({ x, y });
    }
  }
  const path: string[] = [];
  for (let k = key(goal.x, goal.y); k !== key(start.x, start.y); k = from.get(k)!.prev)
    path.unshift(LETTER[from.get(k)!.dir]);
  return path;
}
