// Typed engine errors. Their `name`s are stable: Step Functions Retry/Catch
// match on them, locally and in AWS alike.
import { ERROR_NAMES } from './error-names.ts';

/** Input that can never succeed; finalize, do not retry. */
export class InvalidInputError extends Error {
  override readonly name = ERROR_NAMES.invalidInput;
  constructor(
    readonly field: string,
    readonly value: unknown,
    message: string,
  ) {
    super(message);
  }
}

export class ExperimentNotFoundError extends Error {
  override readonly name = 'ExperimentNotFoundError';
  constructor(readonly experimentId: string) {
    super(`no experiment with id ${experimentId}`);
  }
}

/** A turn arrived out of order (e.g. turn 5 while the experiment has finished turn 2). */
export class TurnOutOfOrderError extends Error {
  override readonly name = 'TurnOutOfOrderError';
  constructor(
    readonly experimentId: string,
    readonly requested: number,
    readonly completed: number,
  ) {
    super(
      `experiment ${experimentId}: turn ${requested} requested but ${completed} turns are complete; ` +
        `the next turn is ${completed + 1}`,
    );
  }
}

/**
 * A value too large to store: the row holding it could not be read back through the RDS Data API (64 KB a row,
 * stored-limits.ts). Thrown before the row is written; `field` is table.column.
 */
export class ValueTooLargeError extends Error {
  override readonly name = ERROR_NAMES.valueTooLarge;
  constructor(
    readonly field: string,
    readonly bytes: number,
    readonly limit: number,
    fix: string,
  ) {
    super(
      `${field} is ${bytes.toLocaleString('en-US')} bytes, over its limit of ${limit.toLocaleString('en-US')} ` +
        `bytes (the RDS Data API reads back no row over 64 KB); ${fix}`,
    );
  }
}

/** The experiment is no longer running; its turns cannot advance. */
export class ExperimentClosedError extends Error {
  override readonly name = 'ExperimentClosedError';
  constructor(
    readonly experimentId: string,
    readonly status: string,
  ) {
    super(`experiment ${experimentId} is ${status}; only running experiments take turns`);
  }
}

/**
 * A model call was stopped, or a retry of it not started, because the turn's deadline came (turn-deadline.ts). The
 * engine then ends the turn (stop reason `deadline`) and commits what it did; a turn that got no reply at all fails
 * with it, since committing nothing would only repeat the turn.
 */
export class ModelCallDeadlineError extends Error {
  override readonly name = 'ModelCallDeadlineError';
}
