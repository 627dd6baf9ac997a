// Plain-text mazes, as `ariadne maze` prints them and as other tools and papers write them: one line per row,
// `#` wall, `.` (or a space) empty, `G` goal, `S` start (an empty tile). Every problem names its line and column.
import { EMPTY, GOAL, Grid, WALL, type Point, type Tile } from './grid.ts';
import { buildMaze, type Maze } from './maze.ts';
import { MazeInputError } from './errors.ts';
import { MAX_SIZE } from './generators/index.ts';

const TILES: Record<string, Tile> = { '#': WALL, '.': EMPTY, ' ': EMPTY, G: GOAL, S: EMPTY };
const LEGEND = '# wall, . or space empty, G goal, S start';

export function parseMazeText(text: string, source = 'maze text'): Maze {
  // blank lines around the picture are layout, not rows; trailing spaces are kept only inside the picture
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const first = lines.findIndex((l) => l.trim() !== '');
  const last = lines.findLastIndex((l) => l.trim() !== '');
  if (first < 0) throw new MazeInputError('maze-file', source, `${source} is empty: expected rows of ${LEGEND}`);
  const rows = lines.slice(first, last + 1);
  const lineNo = (y: number) => first + y + 1;
  if (rows.length < 2 || rows.length > MAX_SIZE)
    throw new MazeInputError('rows', rows.length, `${source}: ${rows.length} rows; a maze has 2 to ${MAX_SIZE}`);
  const width = rows[0].length;
  const grid = new Grid(width, rows.length);
  const starts: Point[] = [];
  rows.forEach((row, y) => {
    if (row.length !== width)
      throw new MazeInputError(
        `line ${lineNo(y)}`,
        row.length,
        `${source}: line ${lineNo(y)} has ${row.length} tiles, line ${lineNo(0)} has ${width}: ` +
          'every row must have the same length (ragged rows)',
      );
    [...row].forEach((ch, x) => {
      const tile = TILES[ch];
      if (tile === undefined)
        throw new MazeInputError(
          `line ${lineNo(y)}, column ${x + 1}`,
          ch,
          `${source}: line ${lineNo(y)}, column ${x + 1} is ${JSON.stringify(ch)}; a tile is one of ${LEGEND}`,
        );
      grid.set(x, y, tile);
      if (ch === 'S') starts.push({ x, y });
    });
  });
  if (width < 2 || width > MAX_SIZE)
    throw new MazeInputError('columns', width, `${source}: ${width} columns; a maze has 2 to ${MAX_SIZE}`);
  if (starts.length !== 1)
    throw new MazeInputError(
      'S',
      `${starts.length} start marks`,
      `${source}: a maze needs exactly one start mark S, found ${starts.length}`,
    );
  try {
    return buildMaze(grid, starts[0], 'imported', null);
  } catch (err) {
    if (err instanceof MazeInputError) throw new MazeInputError(err.field, err.value, `${source}: ${err.message}`);
    throw err;
  }
}
