// config/parameters.yaml (or $ARIADNE_PARAMETERS): the local stand-in for
// Parameter Store, read by the commands that run experiments on this machine.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InvalidInputError } from '../../core/errors.ts';
import { ParameterCache, type ParameterSource } from '../../core/config/parameters.ts';
import { fileSource } from '../../core/config/file-source.ts';
import { envString } from '../../core/config/environment.ts';

export function localParameterSource(): ParameterSource | undefined {
  const named = envString('ARIADNE_PARAMETERS');
  const file = named ?? fileURLToPath(new URL('../../config/parameters.yaml', import.meta.url));
  if (!existsSync(file)) {
    if (named)
      throw new InvalidInputError('ARIADNE_PARAMETERS', file, `ARIADNE_PARAMETERS names ${file}, which does not exist`);
    return undefined;
  }
  return fileSource(file);
}

export function localParameters(): ParameterCache | undefined {
  const source = localParameterSource();
  return source ? new ParameterCache(source) : undefined;
}
