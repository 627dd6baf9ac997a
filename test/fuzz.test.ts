// Fuzzing the turn engine with fast-check: random mazes, random configs and
// random tool-call sequences (valid, invalid, oversized), with the game's
// invariants checked after every action; then random sequences through the
// whole turn engine and Postgres, with the counters checked against the rows.
import { describe, expect, it, afterAll, beforeAll } from 'vitest';
import fc from 'fast-check';
import { executeCall, initialState, UNKNOWN } from '../core/engine/game.ts';
import { experimentConfigSchema } from '../core/config/experiment-config.ts';
import { generateMaze } from '../core/maze/generators/index.ts';
import { visibleCells } from '../core/maze/vision.ts';
import { WALL } from '../core/maze/grid.ts';
import { runTurn } from '../core/engine/turn.ts';
import { startExperiment } from '../core/engine/experiment.ts';
import { PgStore } from '../core/store/pg-store.ts';
import type { AgentFactory } from '../core/engine/agent.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

const GENERATORS = ['sparse', 'medium', 'dense', 'rooms_and_corridors', 'spiral', 'perfect', 'open_field'];
const oddSize = fc.integer({ min: 2, max: 15 }).map((n) => 2 * n + 1);

const mazeArb = fc.record({
  generator: fc.constantFrom(...GENERATORS),
  size: oddSize,
  seed: fc.integer({ min: 0, max: 0xffffffff }),
});
const configArb = fc
  .record({
    vision_range: fc.integer({ min: 1, max: 5 }),
    see_through: fc.boolean(),
    success_rule: fc.constantFrom('seen', 'reached'),
    recall_interval: fc.integer({ min: 0, max: 5 }),
    max_recall_actions: fc.integer({ min: 1, max: 20 }),
  })
  .map((c) => experimentConfigSchema.parse({ ...c, max_moves: 1_000_000, max_turns: 1_000_000 }));

/** Any call an agent might make, sane or not. */
const callArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .constantFrom('move_north', 'move_south', 'move_east', 'move_west')
      .map((name) => ({ name, arguments: {} })),
  },
  { weight: 1, arbitrary: fc.constant({ name: 'recall_all', arguments: {} }) },
  { weight: 1, arbitrary: fc.record({ name: fc.string({ maxLength: 40 }), arguments: fc.anything() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      name: fc.constantFrom('move_north', 'recall_all'),
      arguments: fc.oneof(fc.anything(), fc.dictionary(fc.string(), fc.anything())),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      name: fc.constant('move_east'),
      arguments: fc.record({
        reasoning: fc.oneof(fc.string({ maxLength: 50 }), fc.constant('x'.repeat(30_000)), fc.integer()),
      }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ name: fc.constant('move_south'.repeat(1_000)), arguments: fc.constant(null) }) },
  // control characters, NUL included, and lone surrogates: what a broken model or a hostile prompt can produce
  {
    weight: 1,
    arbitrary: fc.record({
      name: fc.constantFrom('move_west', 'move\u0000west', '\ud800'),
      arguments: fc.record({ reasoning: fc.string({ unit: 'binary', maxLength: 30 }) }),
    }),
  },
);

describe('the rules under random calls', () => {
  it('keep every invariant after every action', () => {
    fc.assert(
      fc.property(mazeArb, configArb, fc.array(callArb, { maxLength: 150 }), (spec, config, calls) => {
        const maze = generateMaze({ generator: spec.generator, width: spec.size, height: spec.size, seed: spec.seed });
        const state = initialState(maze, config);
        let steps = 0;
        calls.forEach((call, i) => {
          const before = { ...state.position };
          const foundBefore = state.goalFound;
          const r = executeCall(state, maze, config, call, { callIndex: i, assistantText: null });
          // every call counts as one action, numbered in order
          expect(r.executed).toBe(true);
          expect(r.step).toBe(++steps);
          expect(state.actionsTaken).toBe(steps);
          // the agent stands on an open tile inside the maze; a move goes one tile or nowhere
          const { x, y } = state.position;
          expect(x >= 0 && y >= 0 && x < maze.width && y < maze.height).toBe(true);
          expect(maze.grid.get(x, y)).not.toBe(WALL);
          const moved = Math.abs(x - before.x) + Math.abs(y - before.y);
          expect(moved).toBe(r.outcome === 'moved' ? 1 : 0);
          expect(r.to).toEqual(state.position);
          // what it saw is exactly what the grid shows from there
          const expected = visibleCells(maze.grid, state.position, {
            range: config.vision_range,
            seeThrough: config.see_through,
          }).map((c) => [c % maze.width, Math.floor(c / maze.width), maze.grid.cells[c]]);
          if (r.outcome === 'moved' || r.vision.length > 0) expect(r.vision).toEqual(expected);
          for (const [vx, vy, tile] of r.vision) expect(maze.grid.get(vx, vy)).toBe(tile);
          // what it knows is true, and counted
          let known = 0;
          state.known.forEach((t, c) => {
            if (t !== UNKNOWN) {
              known++;
              expect(t).toBe(maze.grid.cells[c]);
            }
          });
          expect(state.tilesSeen).toBe(known);
          // success means the goal is where the rule says, at the action that found it (the turn ends there; these
          // calls go on past it only to keep the other invariants under test)
          const foundNow = state.goalFound && !foundBefore;
          if (foundNow && config.success_rule === 'reached') expect([x, y]).toEqual([maze.goal.x, maze.goal.y]);
          if (foundBefore) expect(state.goalFound).toBe(true);
        });
      }),
      { numRuns: 300 },
    );
  });
});

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe('the turn engine and Postgres under random replies', () => {
  it('the counters always equal the rows, every reply logged once, in order', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        mazeArb,
        fc.array(fc.array(callArb, { maxLength: 12 }), { minLength: 1, maxLength: 8 }),
        async (spec, replies) => {
          const store = new PgStore(db);
          const { experimentId } = await startExperiment(
            {
              experimentId: `fuzz-${run++}`,
              agent: 'random',
              provider: 'baseline',
              maze: {
                kind: 'generated',
                spec: { generator: spec.generator, width: spec.size, height: spec.size, seed: spec.seed },
              },
              config: { max_moves: 60, max_actions_per_turn: 6 },
            },
            store,
          );
          let next = 0;
          const agents: AgentFactory = () => ({
            callsModel: true,
            act: () => Promise.resolve({ calls: replies[next++] ?? [], text: 'fuzz' }),
          });
          let turn = 1;
          for (; next < replies.length; turn++) {
            const t = await runTurn(experimentId, turn, { store: new PgStore(db), agents });
            if (t.goalFound || t.actionsTaken >= 60) break;
          }
          const { rows } = await db.pool.query(
            `
        SELECT e.actions_taken, e.turns_completed, e.position_x, e.position_y, e.tiles_seen,
          (SELECT count(*)::int FROM actions a WHERE a.experiment_id = e.id AND a.executed) AS executed,
          (SELECT count(*)::int FROM actions a WHERE a.experiment_id = e.id) AS logged,
          (SELECT count(*)::int FROM turns t WHERE t.experiment_id = e.id) AS turns,
          (SELECT coalesce(sum(actions_executed + calls_refused), 0)::int FROM turns t
           WHERE t.experiment_id = e.id) AS turn_calls,
          (SELECT array_agg(step_number ORDER BY turn_number, call_index) FROM actions a
           WHERE a.experiment_id = e.id AND a.executed) AS steps,
          (SELECT to_x || ',' || to_y FROM actions a
           WHERE a.experiment_id = e.id AND a.executed ORDER BY step_number DESC LIMIT 1) AS last_to
        FROM experiments e WHERE e.id = $1`,
            [experimentId],
          );
          const r = rows[0];
          expect(r.executed).toBe(r.actions_taken);
          expect(r.turns).toBe(r.turns_completed);
          expect(r.logged).toBe(r.turn_calls);
          expect(r.steps ?? []).toEqual(Array.from({ length: r.actions_taken }, (_, i) => i + 1));
          if (r.last_to) expect(r.last_to).toBe(`${r.position_x},${r.position_y}`);
          // the knowledge a cold process rebuilds from the log matches the counter
          const ctx = await new PgStore(db).loadTurnContext(experimentId);
          expect(ctx.state.tilesSeen).toBe(r.tiles_seen);
          // and how often each cell was entered, from the logged moves
          const entered = await db.pool.query<{ cell: number; n: number }>(
            `SELECT to_y * $2 + to_x AS cell, count(*)::int AS n FROM actions
             WHERE experiment_id = $1 AND outcome = 'moved' GROUP BY 1`,
            [experimentId, ctx.maze.width],
          );
          const entries = new Uint32Array(ctx.maze.width * ctx.maze.height);
          for (const e of entered.rows) entries[e.cell] = e.n;
          expect(ctx.state.entries).toEqual(entries);
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});
