import { ERROR_NAMES } from '../error-names.ts';

/** Bad maze input (spec or file): names the field, the value and the fix. Stable name for Step Functions Catch. */
export class MazeInputError extends Error {
  override readonly name = ERROR_NAMES.mazeInput;
  constructor(
    readonly field: string,
    readonly value: unknown,
    message: string,
  ) {
    super(message);
  }
}
