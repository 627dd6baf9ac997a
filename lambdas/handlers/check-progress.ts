// CheckProgress: decide between another turn, success, timeout, stuck and
// continue-as-new. Arithmetic on its input and the clock: no database, so its
// Lambda opens none (its 10 s timeout has no room for a paused cluster).
import { checkProgress, type Progress } from '../engine/experiment.ts';
import { parseOrThrow } from '../config/zod-errors.ts';
import { progressInputSchema, progressTaskInputSchema } from '../machine/contracts.ts';
import { turnReserveSeconds } from '../machine/tasks.ts';
import type { HandlerDeps } from './deps.ts';

export const checkProgressHandler =
  (deps: Pick<HandlerDeps, 'now'>) =>
  (event: unknown): Promise<Progress> => {
    // The machine passes { state, execution }; a machine version from before a deploy passed the state alone.
    const withClock = event !== null && typeof event === 'object' && 'execution' in event;
    const { state: s, execution } = withClock
      ? parseOrThrow(progressTaskInputSchema, event)
      : { state: parseOrThrow(progressInputSchema, event), execution: undefined };
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
        execution: execution && {
          startTime: new Date(execution.startTime),
          timeoutSeconds: execution.timeoutSeconds,
          turnReserveSeconds: turnReserveSeconds(s.llmProvider),
        },
      },
      deps.now(),
    );
    return Promise.resolve(progress);
  };

export const handler = checkProgressHandler({ now: () => new Date() });
