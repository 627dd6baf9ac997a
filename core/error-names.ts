// The names of the typed errors the state machines match in Retry and Catch (core/machine/states.ts): each
// class takes its `name` from here and the machines' lists read the same constant, so a rename cannot leave a
// Retry matching nothing. A leaf module: the maze, the store, the providers and the machines all import it.

export const ERROR_NAMES = {
  /** core/store/sql.ts: the database did not answer (retried by every database Task). */
  databaseUnavailable: 'DatabaseUnavailableError',
  /** core/providers/llm/retry.ts: a model stayed unavailable through the handler's own retries. */
  providerTransient: 'ProviderTransientError',
  /** core/errors.ts: bad input, refused before anything is written. */
  invalidInput: 'InvalidInputError',
  /** core/maze/errors.ts: a maze that cannot be built or read. */
  mazeInput: 'MazeInputError',
  /** core/errors.ts: a value over its stored limit. */
  valueTooLarge: 'ValueTooLargeError',
} as const;
