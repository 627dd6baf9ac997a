// One executed action as the turn engine records it, for suites that feed the
// agent monitor or the workflow runner hand-made actions. Success follows the
// outcome as in the game: only a move or a recall succeeds.
import type { ActionResult, Outcome } from '../../core/engine/game.ts';

export function actionResult(tool: string, outcome: Outcome, over: Partial<ActionResult> = {}): ActionResult {
  return {
    callIndex: 0,
    step: 1,
    tool,
    arguments: {},
    reasoning: null,
    assistantText: null,
    parsedFromText: false,
    executed: true,
    success: outcome === 'moved' || outcome === 'recalled',
    outcome,
    message: '',
    from: { x: 0, y: 0 },
    to: { x: 0, y: 0 },
    vision: [],
    newTiles: 0,
    recalled: null,
    goalFound: false,
    ...over,
  };
}
