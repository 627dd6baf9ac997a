// Node 20 reached end of life in April 2026. Ariadne still runs on it (the whole suite passes there), so a
// Node 20 user gets one plain line saying so, once a day (and on npm install), in place of the AWS SDK's
// multi-line NodeVersionSupportWarning, which would otherwise appear on every command that builds an SDK client.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { envDefault, envString } from '../../core/config/environment.ts';

/** The AWS SDK warns below this major version; so do we. */
const RECOMMENDED_MAJOR = 22;

/** What to tell the user about a Node version such as `process.version` (v20.20.2); nothing on 22 or newer. */
export function nodeVersionNotice(version: string): string | undefined {
  const m = /^v?(\d+)\.(\d+)\./.exec(version);
  if (!m) return undefined; // unreadable: say nothing rather than guess
  const major = Number(m[1]);
  const minor = Number(m[2]);
  if (major >= RECOMMENDED_MAJOR) return undefined;
  const advice = `Node ${RECOMMENDED_MAJOR} or newer is recommended (nvm install ${RECOMMENDED_MAJOR})`;
  // 20.19 is the oldest 20.x that every dependency declares (package.json engines says the same).
  if (major === 20 && minor >= 19) {
    return `ariadne: Node ${version} reached end of life in April 2026; Ariadne works on it, but ${advice}.`;
  }
  return `ariadne: Node ${version} is not supported (Ariadne needs 20.19 or a later 20.x, or 22 or newer); ${advice}.`;
}

/**
 * Where the last notice is noted (the Node version and the day): the user's cache directory, so each user is told
 * once a day on each machine, and again the day a different Node runs the CLI.
 */
export function noticeStampFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(envString('XDG_CACHE_HOME', env) ?? join(homedir(), '.cache'), 'ariadne', 'node-version-notice');
}

/** True when `key` is noted in `file` already; else notes it. A stamp that cannot be read or written says false. */
function alreadyNoted(file: string, key: string): boolean {
  try {
    if (readFileSync(file, 'utf8') === key) return true;
  } catch {
    // no stamp yet
  }
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, key);
  } catch {
    // a cache directory we cannot write: the line is said each time, as before the stamp
  }
  return false;
}

/**
 * At the start of every command that runs: on Node < 22, one line on stderr (so --json output stays clean) the
 * first time a day, and the AWS SDK's own warning turned off, every time, with the switch the SDK documents for
 * this, unless the user set it already. ARIADNE_NO_NODE_WARNING=1 silences our line too (the test suite sets it:
 * its CLI tests read stderr) and leaves the stamp alone, so the line still comes once the switch is gone.
 */
export function warnIfOldNode(
  version: string = process.version,
  env: NodeJS.ProcessEnv = process.env,
  write: (line: string) => void = (line) => process.stderr.write(line),
  stampFile: string = noticeStampFile(env),
  today: Date = new Date(),
): void {
  const notice = nodeVersionNotice(version);
  if (notice === undefined) return;
  // @aws-sdk/core reads it when the first client is built (emitWarningIfUnsupportedVersion), so setting it
  // before any client exists is enough; child processes inherit it.
  envDefault('AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED', 'true', env);
  const silenced = envString('ARIADNE_NO_NODE_WARNING', env);
  if (silenced !== undefined && silenced !== '0') return;
  // the local calendar day: "once a day" as the user counts days
  const day = `${today.getFullYear()}-${today.getMonth() + 1}-${today.getDate()}`;
  if (!alreadyNoted(stampFile, `${version} ${day}\n`)) write(`${notice}\n`);
}
