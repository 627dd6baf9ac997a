// CheckProgress: decide between another turn, success, timeout and stuck.
import { checkProgress, type Progress } from '../engine/experiment.ts';
import { parseOrThrow } from '../config/zod-errors.ts';
import { progressInputSchema } from '../../state-machine/contracts.ts';
import { lambdaEntry, type HandlerDeps } from './deps.ts';

export const checkProgressHandler =
  (deps: HandlerDeps) =>
  (event: unknown): Promise<Progress> => {
    const s = parseOrThrow(progressInputSchema, event);
    const progress = checkProgress(
      {
        goalFound: s.turn.goalFound,
        halt: s.turn.halt,
        actionsTaken: s.turn.actionsTaken,
        startedAt: new Date(s.startedAt),
        maxMoves: s.limits.maxMoves,
        maxDurationMinutes: s.limits.maxDurationMinutes,
        turnNumber: s.turnNumber,
        maxTurns: s.limits.maxTurns,
        executionStartTurn: s.executionStartTurn,
        turnsPerExecution: s.limits.turnsPerExecution,
      },
      deps.now(),
    );
    return Promise.resolve(progress);
  };

export const handler = lambdaEntry(checkProgressHandler);
