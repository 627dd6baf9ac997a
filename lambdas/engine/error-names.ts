// The names of the typed errors the state machines match in Retry and Catch (lambdas/machine/states.ts): each
// class takes its `name` from here and the machines' lists read the same constant, so a rename cannot leave a
// Retry matching nothing. A leaf module: the maze, the store, the providers and the machines all import it.

export const ERROR_NAMES = {
  /** lambdas/store/sql.ts: the database did not answer (retried by every database Task). */
  databaseUnavailable: 'DatabaseUnavailableError',
  /** lambdas/providers/llm/retry.ts: a model stayed unavailable through the handler's own retries. */
  providerTransient: 'ProviderTransientError',
  /** lambdas/engine/errors.ts: bad input, refused before anything is written. */
  invalidInput: 'InvalidInputError',
  /** lambdas/maze/errors.ts: a maze that cannot be built or read. */
  mazeInput: 'MazeInputError',
  /** lambdas/engine/errors.ts: a value over its stored limit. */
  valueTooLarge: 'ValueTooLargeError',
} as const;
