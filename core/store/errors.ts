/** The database settings are wrong (a malformed URL, a missing setting); the message says which one to fix. */
export class DatabaseConfigError extends Error {
  override readonly name = 'DatabaseConfigError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The settings look right but the server cannot be reached or started (down, refused, a data directory it may
 * not create): a problem of the environment, not of the input.
 */
export class DatabaseUnreachableError extends Error {
  override readonly name = 'DatabaseUnreachableError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Service-side conditions that pass: the instance resuming from auto-pause, the writer briefly unavailable (a
 * failover, a scaling event), the Data API itself failing or overloaded. Retried by data-api-sql.ts; the
 * migrations' "not yet" (migrate-database.ts).
 */
export const DATA_API_UNAVAILABLE_NAMES: ReadonlySet<string> = new Set([
  'DatabaseResumingException',
  'DatabaseUnavailableException',
  'ServiceUnavailableError',
  'InternalServerErrorException',
  'ThrottlingException',
]);
