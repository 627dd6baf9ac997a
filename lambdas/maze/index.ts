export * from './grid.ts';
export * from './rng.ts';
export * from './vision.ts';
export * from './solver.ts';
export * from './maze.ts';
export * from './errors.ts';
export * from './maze-file.ts';
export * from './generators/index.ts';
