// CLI option parsing that names the option, the value and the valid choices.
import { InvalidInputError } from '../../lambdas/engine/errors.ts';

export function intOption(option: string, min: number, max: number) {
  return (raw: string): number => {
    const text = raw.trim();
    if (!/^-?\d+$/.test(text))
      throw new InvalidInputError(option, raw, `${option} must be a whole number from ${min} to ${max}, got "${raw}"`);
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n < min || n > max)
      throw new InvalidInputError(option, raw, `${option} must be a whole number from ${min} to ${max}, got ${text}`);
    return n;
  };
}

export function numberOption(option: string, min: number, max: number) {
  return (raw: string): number => {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || n < min || n > max)
      throw new InvalidInputError(option, raw, `${option} must be a number from ${min} to ${max}, got "${raw}"`);
    return n;
  };
}

export function choiceOption<T extends string>(option: string, choices: readonly T[]) {
  return (raw: string): T => {
    if (!(choices as readonly string[]).includes(raw)) {
      throw new InvalidInputError(option, raw, `${option} "${raw}" is not one of: ${choices.join(', ')}`);
    }
    return raw as T;
  };
}
