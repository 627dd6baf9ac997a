// How this user runs the CLI, so every command a hint prints works as typed:
// `npm run ariadne -- ...` in a checkout, `ariadne ...` once installed or linked.
import { readFileSync } from 'node:fs';
import { envString } from '../../core/config/environment.ts';

// Read at runtime, so `--version` can never drift from the package.
const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};

export function packageVersion(): string {
  return PACKAGE.version;
}

/**
 * The words that start an ariadne command for this user. npm sets `npm_lifecycle_event` for `npm run ariadne` and
 * `npm start` ("npx" under npx, with the command it ran in `npm_lifecycle_script`); `npm_package_name` tells this
 * package's scripts from a user's own script that calls an installed `ariadne`. Empty values count as unset, so a
 * test can clear them.
 */
export function commandPrefix(env: NodeJS.ProcessEnv = process.env): string {
  const event = envString('npm_lifecycle_event', env);
  if (!event) return 'ariadne';
  if (event === 'npx' && envString('npm_lifecycle_script', env) === 'ariadne') return 'npx ariadne';
  // in a checkout (npm run ariadne, npm start, npx tsx bin/ariadne.ts) the script is what works
  const name = envString('npm_package_name', env);
  return !name || name === PACKAGE.name ? 'npm run ariadne --' : 'ariadne';
}
