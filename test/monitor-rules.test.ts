// The agent monitor's rules, fed hand-made actions so each rule is checked in
// isolation: which action puts the agent in which phase, when each detector
// trips and what resets it, and that its snapshot carries everything across turns.
import { describe, expect, it } from 'vitest';
import { ADVICE, AgentMonitor, DEFAULT_THRESHOLDS } from '../core/engine/agent-monitor.ts';
import type { Outcome } from '../core/engine/game.ts';
import { actionResult } from './support/action-result.ts';

let step = 0;
interface Act {
  tool?: string;
  outcome?: Outcome;
  at?: [number, number];
  to?: [number, number];
  newTiles?: number;
  goalFound?: boolean;
  executed?: boolean;
}
/** One executed action; `to` defaults to `at` unless the action moved. */
function act({ tool = 'move_east', outcome = 'moved', at = [0, 0], to, newTiles = 0, goalFound = false }: Act) {
  step++;
  const dest = to ?? (outcome === 'moved' ? [at[0] + 1, at[1]] : at);
  return actionResult(tool, outcome, {
    step,
    message: outcome === 'blocked_by_wall' ? 'cannot move east: a wall' : 'ok',
    from: { x: at[0], y: at[1] },
    to: { x: dest[0], y: dest[1] },
    newTiles,
    goalFound,
  });
}

const wall = (tool = 'move_east', at: [number, number] = [0, 0]) => act({ tool, outcome: 'blocked_by_wall', at });
const recall = (outcome: Outcome = 'recalled') => act({ tool: 'recall_all', outcome });
const thresholds = (over: Partial<typeof DEFAULT_THRESHOLDS>) => ({ ...DEFAULT_THRESHOLDS, ...over });
const detectors = (m: AgentMonitor) => m.signals.map((s) => s.detector);

describe('phases', () => {
  it('a move revealing tiles: exploring; over known ground: backtracking; recall: recalling; goal: finishing', () => {
    step = 0;
    const m = new AgentMonitor();
    m.observe(act({ newTiles: 2 }), 1);
    expect(m.phase).toBe('exploring');
    m.observe(act({}), 1);
    expect(m.phase).toBe('backtracking');
    m.observe(act({ newTiles: 1 }), 1);
    expect(m.phase).toBe('exploring');
    m.observe(recall('recall_cooldown'), 1); // a refused recall changes nothing
    expect(m.phase).toBe('exploring');
    m.observe(recall(), 2);
    expect(m.phase).toBe('recalling');
    m.observe(act({ goalFound: true }), 2);
    expect(m.phase).toBe('finishing');
    expect(m.transitions.map((t) => [t.from, t.to, t.step, t.turn, t.cause])).toEqual([
      ['exploring', 'backtracking', 2, 1, 'moved'],
      ['backtracking', 'exploring', 3, 1, 'moved'],
      ['exploring', 'recalling', 5, 2, 'recalled'],
      ['recalling', 'finishing', 6, 2, 'goal found'],
    ]);
    expect(m.transitions.every((t) => !t.refused)).toBe(true);
  });

  it('calls that were not executed are ignored', () => {
    const m = new AgentMonitor();
    const refused = { ...act({ newTiles: 0 }), executed: false, step: null };
    expect(m.observe(refused, 1)).toEqual({ transitions: [], signals: [] });
    expect(m.snapshot()).toEqual(new AgentMonitor().snapshot());
  });

  it('out of stuck only with progress: a move over known ground keeps the agent stuck', () => {
    step = 0;
    const m = new AgentMonitor(thresholds({ repeated_failed_move: 2 }));
    m.observe(wall(), 1);
    m.observe(wall(), 1);
    expect(m.phase).toBe('stuck');
    m.observe(act({}), 1);
    expect(m.phase).toBe('stuck');
    m.observe(act({ newTiles: 1 }), 1);
    expect(m.phase).toBe('exploring');
  });

  it('a request the table forbids is recorded as refused and changes nothing', () => {
    const m = new AgentMonitor();
    expect(m.request('exploring', 1, 1, 'workflow')).toBe(false); // no self-transition
    expect(m.transitions).toEqual([
      { from: 'exploring', to: 'exploring', step: 1, turn: 1, cause: 'workflow', refused: true },
    ]);
    expect(m.request('stuck', 2, 1, 'workflow')).toBe(true);
    expect(m.healthy).toBe(false);
  });

  it('the advise view: phase, actions and turns in it, health, and each detection with its advice', () => {
    step = 0;
    const m = new AgentMonitor(thresholds({ repeated_failed_move: 2 }));
    expect(m.view(0, 1)).toEqual({
      phase: 'exploring',
      actionsInPhase: 0,
      turnsInPhase: 0,
      healthy: true,
      detected: [],
    });
    m.observe(wall(), 1);
    m.observe(wall(), 2); // stuck at step 2 of turn 2
    const v = m.view(7, 4);
    expect(v).toMatchObject({ phase: 'stuck', actionsInPhase: 5, turnsInPhase: 2, healthy: false });
    expect(v.detected).toEqual([
      {
        detector: 'repeated_failed_move',
        detail: 'move_east failed 2 times in a row at (0,0): cannot move east: a wall',
        advice: ADVICE.repeated_failed_move,
      },
    ]);
  });
});

describe('repeated failed moves', () => {
  it('count only the same move from the same cell; another failure starts a new streak', () => {
    step = 0;
    const m = new AgentMonitor();
    m.observe(wall('move_east'), 1);
    m.observe(wall('move_east'), 1);
    m.observe(wall('move_north'), 1); // another move: the streak restarts at 1
    m.observe(wall('move_north'), 1);
    expect(detectors(m)).toEqual([]);
    m.observe(wall('move_north'), 1);
    expect(m.signals).toMatchObject([{ detector: 'repeated_failed_move', step: 5, turn: 1 }]);
  });

  it('the same move with bad arguments in between keeps the streak; a recall or a successful move ends it', () => {
    step = 0;
    const m = new AgentMonitor();
    m.observe(wall(), 1);
    m.observe(wall(), 1);
    m.observe(act({ outcome: 'invalid_arguments' }), 1);
    m.observe(wall(), 1);
    expect(detectors(m)).toEqual(['repeated_failed_move']);

    step = 0;
    const r = new AgentMonitor(thresholds({ recall_spam: 99 }));
    r.observe(wall(), 1);
    r.observe(wall(), 1);
    r.observe(recall('recall_cooldown'), 1);
    r.observe(wall(), 1);
    expect(detectors(r)).toEqual([]);

    step = 0;
    const n = new AgentMonitor();
    n.observe(wall(), 1);
    n.observe(wall(), 1);
    n.observe(act({ at: [0, 0], to: [0, 0] }), 1); // moved (back to the same cell)
    n.observe(wall(), 1);
    expect(detectors(n)).toEqual([]);
  });

  it('the same move from another cell is another streak', () => {
    step = 0;
    const m = new AgentMonitor();
    m.observe(wall('move_east', [0, 0]), 1);
    m.observe(wall('move_east', [0, 0]), 1);
    m.observe(wall('move_east', [0, 1]), 1);
    expect(detectors(m)).toEqual([]);
  });
});

describe('oscillation and revisits', () => {
  it('A-B-A-B over the window trips oscillation; A-B-C-B does not', () => {
    step = 0;
    const m = new AgentMonitor();
    const go = (x: number) => m.observe(act({ to: [x, 0] }), 1);
    go(1);
    go(2);
    go(3);
    go(2);
    expect(detectors(m)).toEqual([]);
    go(3);
    expect(detectors(m)).toEqual(['oscillation']);
    expect(m.signals[0].detail).toBe('moving back and forth between (2,0) and (3,0)');
    expect(m.signals[0].step).toBe(5);
  });

  it('standing still (A-A-A-A) is not an oscillation', () => {
    step = 0;
    const m = new AgentMonitor(thresholds({ cell_revisits: 99 }));
    for (let k = 0; k < 6; k++) m.observe(act({ at: [0, 0], to: [0, 0] }), 1);
    expect(detectors(m)).toEqual([]);
  });

  it('a cell entered cell_revisits times without progress trips cell_revisits, with the count', () => {
    step = 0;
    const m = new AgentMonitor(thresholds({ cell_revisits: 3, oscillation_window: 99 }));
    for (const x of [5, 6, 5, 7]) m.observe(act({ to: [x, 0] }), 1);
    expect(detectors(m)).toEqual([]);
    m.observe(act({ to: [5, 0] }), 1);
    expect(m.signals).toMatchObject([{ detector: 'cell_revisits', detail: 'entered (5,0) 3 times without progress' }]);
  });
});

describe('no new tiles and recall spam', () => {
  it('no_new_tiles trips at the threshold and raises once until progress resets it', () => {
    step = 0;
    const m = new AgentMonitor(thresholds({ no_new_tile_actions: 3 }));
    m.observe(wall(), 1);
    m.observe(recall('recall_cooldown'), 1);
    expect(detectors(m)).toEqual([]);
    m.observe(wall('move_west'), 1);
    expect(m.signals).toMatchObject([{ detector: 'no_new_tiles', detail: '3 actions without a new tile', step: 3 }]);
    m.observe(wall('move_north'), 1);
    expect(detectors(m)).toEqual(['no_new_tiles']); // once
    m.observe(act({ newTiles: 1 }), 1); // progress
    for (let k = 0; k < 3; k++) m.observe(wall(`move_${['south', 'west', 'north'][k]}`), 1);
    expect(detectors(m)).toEqual(['no_new_tiles', 'no_new_tiles']);
  });

  it('recall spam counts recalls within the window only', () => {
    step = 0;
    const m = new AgentMonitor(thresholds({ recall_spam: 3, recall_window: 4, no_new_tile_actions: 99 }));
    m.observe(recall(), 1); // step 1
    m.observe(recall('recall_cooldown'), 1); // step 2
    m.observe(wall(), 1); // 3
    m.observe(wall('move_west'), 1); // 4
    m.observe(recall('recall_cooldown'), 1); // step 5: step 1 is out of the window (5 - 4)
    expect(detectors(m)).toEqual([]);
    m.observe(recall('recall_cooldown'), 1); // step 6: 2, 5, 6 -> 3 within 4 actions? 2 <= 6 - 4: out
    expect(detectors(m)).toEqual([]);
    m.observe(recall('recall_cooldown'), 1); // step 7: 5, 6, 7
    expect(m.signals).toMatchObject([
      { detector: 'recall_spam', step: 7, detail: '3 recall_all calls in the last 4 actions' },
    ]);
  });
});

describe('progress by getting closer to unexplored ground', () => {
  it('the first distance after a new tile is a baseline; only a new best is progress', () => {
    step = 0;
    const m = new AgentMonitor(thresholds({ no_new_tile_actions: 3 }));
    const asked: Array<number | undefined> = [];
    const distances = [5, 5, 4, 6, 6, 6];
    let k = 0;
    const measure = (below?: number) => {
      asked.push(below);
      return distances[k++];
    };
    m.observe(act({ newTiles: 1 }), 1, measure); // new tiles: not measured
    m.observe(act({}), 1, measure); // 5: baseline
    m.observe(act({}), 1, measure); // 5: not better
    m.observe(act({}), 1, measure); // 4: progress, resets
    expect(asked).toEqual([undefined, 5, 5]);
    m.observe(act({}), 1, measure); // 6
    m.observe(act({}), 1, measure); // 6
    expect(detectors(m)).toEqual([]);
    m.observe(act({}), 1, measure); // 6: third action without progress since the best
    expect(detectors(m)).toEqual(['no_new_tiles']);
  });

  it('failed moves and recalls are not measured', () => {
    const m = new AgentMonitor();
    let calls = 0;
    const measure = () => {
      calls++;
      return 1;
    };
    m.observe(wall(), 1, measure);
    m.observe(recall(), 1, measure);
    expect(calls).toBe(0);
  });
});

describe('idle turns', () => {
  it('turns without an action in a row trip idle_turns at the threshold; a turn with actions resets the count', () => {
    const m = new AgentMonitor(thresholds({ idle_turns: 2 }));
    expect(m.endTurn(1, 0, 0)).toEqual([]);
    expect(m.endTurn(2, 3, 3)).toEqual([]);
    expect(m.endTurn(3, 0, 3)).toEqual([]);
    const s = m.endTurn(4, 0, 3);
    expect(s).toEqual([{ detector: 'idle_turns', step: 3, turn: 4, detail: '2 turns in a row without a tool call' }]);
    expect(m.phase).toBe('stuck');
    expect(m.transitions.at(-1)).toMatchObject({ to: 'stuck', cause: 'idle_turns', turn: 4 });
    expect(m.endTurn(5, 0, 3)).toEqual([]); // once until progress
  });
});

describe('the snapshot', () => {
  it('restores a monitor that goes on exactly as the original', () => {
    step = 0;
    const script = [wall(), wall(), act({ to: [1, 0] }), act({ to: [2, 0] }), act({ to: [1, 0] }), recall()];
    const more = [wall('move_east', [1, 0]), act({ to: [2, 0] }), act({ to: [1, 0] }), wall(), wall()];
    const warm = new AgentMonitor(thresholds({ repeated_failed_move: 3 }));
    for (const a of script) warm.observe(a, 1);
    warm.endTurn(1, 6, 6);
    const cold = new AgentMonitor(thresholds({ repeated_failed_move: 3 }), JSON.parse(JSON.stringify(warm.snapshot())));
    expect(cold.snapshot()).toEqual(warm.snapshot());
    const a = more.map((x) => warm.observe(x, 2));
    const b = more.map((x) => cold.observe(x, 2));
    expect(b).toEqual(a);
    expect(cold.snapshot()).toEqual(warm.snapshot());
    expect(cold.view(11, 2)).toEqual(warm.view(11, 2));
  });
});

describe('the snapshot carries every detector across turns', () => {
  const restored = (m: AgentMonitor, t: typeof DEFAULT_THRESHOLDS) =>
    new AgentMonitor(t, JSON.parse(JSON.stringify(m.snapshot())));

  it('recent recalls: spam split across turns is still caught', () => {
    step = 0;
    const t = thresholds({ recall_spam: 3, no_new_tile_actions: 99 });
    const m = new AgentMonitor(t);
    m.observe(recall(), 1);
    m.observe(recall('recall_cooldown'), 1);
    const next = restored(m, t);
    next.observe(recall('recall_cooldown'), 2);
    expect(detectors(next)).toEqual(['recall_spam']);
  });

  it('visits: revisits split across turns are still caught', () => {
    step = 0;
    const t = thresholds({ cell_revisits: 2, oscillation_window: 99 });
    const m = new AgentMonitor(t);
    m.observe(act({ to: [5, 0] }), 1);
    const next = restored(m, t);
    next.observe(act({ to: [6, 0] }), 2);
    next.observe(act({ to: [5, 0] }), 2);
    expect(detectors(next)).toEqual(['cell_revisits']);
  });

  it('tripped detectors: one raised before the snapshot is not raised again; the advice view still shows it', () => {
    step = 0;
    const t = thresholds({ no_new_tile_actions: 2 });
    const m = new AgentMonitor(t);
    m.observe(wall(), 1);
    m.observe(wall('move_west'), 1);
    expect(detectors(m)).toEqual(['no_new_tiles']);
    const next = restored(m, t);
    next.observe(wall('move_north'), 2);
    expect(next.signals).toEqual([]);
    expect(next.view(3, 2).detected.map((d) => d.detector)).toEqual(['no_new_tiles']);
  });

  it('positions: an oscillation split across turns is still caught', () => {
    step = 0;
    const m = new AgentMonitor();
    m.observe(act({ to: [1, 0] }), 1);
    m.observe(act({ to: [2, 0] }), 1);
    const next = restored(m, DEFAULT_THRESHOLDS);
    next.observe(act({ to: [1, 0] }), 2);
    next.observe(act({ to: [2, 0] }), 2);
    expect(detectors(next)).toEqual(['oscillation']);
  });

  it('an idle signal while already stuck records no second transition to stuck', () => {
    step = 0;
    const m = new AgentMonitor(thresholds({ repeated_failed_move: 2, idle_turns: 1 }));
    m.observe(wall(), 1);
    m.observe(wall(), 1);
    const before = m.transitions.length;
    expect(m.endTurn(2, 0, 2).map((s) => s.detector)).toEqual(['idle_turns']);
    expect(m.transitions).toHaveLength(before);
  });
});
