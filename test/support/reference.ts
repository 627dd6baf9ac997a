// Independent reference computations for tests, written plainly over
// grid[y][x] arrays so they share no code with core/maze.

export function referenceBfs(grid: number[][], start: { x: number; y: number }): Map<string, number> {
  const dist = new Map<string, number>([[`${start.x},${start.y}`, 0]]);
  const queue: Array<[number, number]> = [[start.x, start.y]];
  while (queue.length > 0) {
    const [x, y] = queue.shift()!;
    for (const [dx, dy] of [
      [1, 0],
      [-1, 0],
      [0, 1],
      [0, -1],
    ]) {
      const nx = x + dx,
        ny = y + dy;
      if (ny < 0 || ny >= grid.length || nx < 0 || nx >= grid[0].length || grid[ny][nx] === 1) continue;
      const key = `${nx},${ny}`;
      if (dist.has(key)) continue;
      dist.set(key, dist.get(`${x},${y}`)! + 1);
      queue.push([nx, ny]);
    }
  }
  return dist;
}

/** Does a viewer at (x,y) see (tx,ty) with 4 rays of length `range` stopped by walls? */
export function referenceSees(grid: number[][], x: number, y: number, tx: number, ty: number, range: number): boolean {
  if (x !== tx && y !== ty) return false;
  const d = Math.abs(tx - x) + Math.abs(ty - y);
  if (d > range) return false;
  const sx = Math.sign(tx - x),
    sy = Math.sign(ty - y);
  for (let k = 1; k < d; k++) if (grid[y + sy * k][x + sx * k] === 1) return false;
  return true;
}

export function findTile(grid: number[][], tile: number): { x: number; y: number } {
  for (let y = 0; y < grid.length; y++)
    for (let x = 0; x < grid[0].length; x++) if (grid[y][x] === tile) return { x, y };
  throw new Error(`no tile ${tile}`);
}
