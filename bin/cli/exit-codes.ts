// The exit-code contract of every ariadne command, for scripts and CI. docs/getting-started.md, docs/cli.md and
// `ariadne --help` state it.

export const EXIT = {
  /** Everything asked for was done. */
  ok: 0,
  /** The work ran and some of it failed: an experiment ended failed, a sweep had failed runs or met its budget. */
  workFailed: 1,
  /** Bad input (an option, a file, a query) or a lookup that found nothing; the message names what to fix. */
  badInput: 2,
  /** The environment: the database, a model provider or AWS cannot be reached, or credentials are missing. */
  environment: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The `--help` text of the contract. */
export const EXIT_CODES_HELP =
  'Exit codes: 0 success; 1 the work ran and some of it failed (runs, sweeps, a sweep stopped at its budget); ' +
  '2 bad input, or a lookup that found nothing; 3 an environment problem (database, model provider, AWS); ' +
  '130 (143) interrupted by Ctrl-C (SIGTERM): run, resume and sweep say what they left and how to resume it.';

/** A lookup that found nothing (an experiment id, a sweep name, an execution): exit 2. */
export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
  constructor(
    readonly field: string,
    readonly value: string,
    message: string,
  ) {
    super(message);
  }
}

/** Something outside the input stops the command (a server down, no credentials): exit 3. */
export class EnvironmentError extends Error {
  override readonly name = 'EnvironmentError';
  constructor(
    readonly what: string,
    message: string,
  ) {
    super(message);
  }
}
