// Typed engine errors. Their `name`s are stable: Step Functions Retry/Catch
// match on them, locally and in AWS alike.

/** Input that can never succeed; finalize, do not retry. */
export class InvalidInputError extends Error {
  override readonly name = 'InvalidInputError';
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
