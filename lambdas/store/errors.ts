/** The database cannot be reached or configured; the message says which setting to fix. */
export class DatabaseConfigError extends Error {
  override readonly name = 'DatabaseConfigError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}
