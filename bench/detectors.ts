// The stuck detectors' cost per action, at 10,000 actions, without I/O: the
// same action sequence is fed to the agent monitor and timed against the
// game rules alone. Two workloads: a random walk (many unproductive moves,
// so the known-route distance check runs often) and a frontier walk
// (productive). Target: under 5 microseconds per action for the detectors.
import { fileURLToPath } from 'node:url';
import { AgentMonitor } from '../core/engine/agent-monitor.ts';
import { executeCall, initialState, type ActionResult } from '../core/engine/game.ts';
import { frontierSearch } from '../core/engine/frontier.ts';
import { experimentConfigSchema } from '../core/config/experiment-config.ts';
import { generateMaze } from '../core/maze/generators/index.ts';
import { createRng } from '../core/maze/rng.ts';
import { MOVE_TOOLS } from '../core/engine/tools.ts';
import { fmt } from './support.ts';

const ACTIONS = 10_000;
const REPEATS = 5;
const MOVES = Object.keys(MOVE_TOOLS);

interface Run {
  actions: ActionResult[];
  /** The known-route distance after each action, where the monitor asked for it. */
  distances: Array<number | null>;
  /** Time and count of those distance searches (they run on the live known map, so they are timed while playing). */
  distanceSeconds: number;
  distanceCalls: number;
}

/** Plays the agent with a live monitor, recording each action and timing the distance searches it asks for. */
function play(agent: 'random' | 'frontier'): Run {
  const maze = generateMaze({ generator: 'perfect', width: 101, height: 101, seed: 3 });
  const config = experimentConfigSchema.parse({ max_moves: ACTIONS + 1, success_rule: 'reached' });
  const state = initialState(maze, config);
  const random = createRng(7);
  const known = { width: maze.width, height: maze.height, cells: state.known };
  const monitor = new AgentMonitor();
  const run: Run = { actions: [], distances: [], distanceSeconds: 0, distanceCalls: 0 };
  for (let i = 0; i < ACTIONS && !state.goalFound; i++) {
    const dir = agent === 'frontier' ? frontierSearch(known, state.position)?.direction : null;
    const r = executeCall(
      state,
      maze,
      config,
      { name: dir ? `move_${dir}` : random.pick(MOVES), arguments: {} },
      { callIndex: i, assistantText: null },
    );
    run.actions.push(r);
    run.distances.push(null);
    monitor.observe(r, 1, (below) => {
      const t = process.hrtime.bigint();
      const d = frontierSearch(known, state.position, below)?.distance ?? null;
      run.distanceSeconds += Number(process.hrtime.bigint() - t) / 1e9;
      run.distanceCalls++;
      run.distances[i] = d;
      return d;
    });
  }
  return run;
}

/** The monitor alone over the recorded actions, with the recorded distances. */
function timeMonitor(run: Run): { seconds: number; signals: number } {
  const monitor = new AgentMonitor();
  const t = process.hrtime.bigint();
  run.actions.forEach((a, i) => {
    monitor.observe(a, 1 + (i >> 3), () => run.distances[i]);
    if ((i & 7) === 7) monitor.endTurn(1 + (i >> 3), 8, i + 1);
  });
  return { seconds: Number(process.hrtime.bigint() - t) / 1e9, signals: monitor.signals.length };
}

const median = <T extends { seconds?: number; distanceSeconds?: number }>(xs: T[], key: (x: T) => number): T =>
  [...xs].sort((a, b) => key(a) - key(b))[Math.floor(xs.length / 2)];

export function detectorsBench(): void {
  console.log(`Stuck detectors: ${fmt(ACTIONS)} actions on a 101x101 perfect maze, median of ${REPEATS}`);
  for (const agent of ['random', 'frontier'] as const) {
    const plays = Array.from({ length: REPEATS }, () => play(agent));
    const run = median(plays, (p) => p.distanceSeconds);
    const n = run.actions.length;
    for (let i = 0; i < 2; i++) timeMonitor(run); // warm up the JIT
    const m = median(
      Array.from({ length: REPEATS }, () => timeMonitor(run)),
      (x) => x.seconds,
    );
    const perAction = (m.seconds / n) * 1e6;
    const distPerAction = (run.distanceSeconds / n) * 1e6;
    console.log(
      `  ${agent.padEnd(8)} ${fmt(n)} actions: detectors ${fmt(perAction, 2)} us/action (target < 5; ` +
        `${fmt(perAction / 5, 2)}x of target), ` +
        `signals ${m.signals}; distance checks on ${fmt(run.distanceCalls)} actions ` +
        `(${fmt((100 * run.distanceCalls) / n)}%) add ${fmt(distPerAction, 2)} us/action, ` +
        `detectors + distance ${fmt(perAction + distPerAction, 2)} us/action`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) detectorsBench();
