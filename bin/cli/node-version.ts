// Node 20 reached end of life in April 2026. Ariadne still runs on it (the whole suite passes there), so a
// Node 20 user gets one plain line per command saying so, in place of the AWS SDK's multi-line
// NodeVersionSupportWarning, which would otherwise appear on every command that builds an SDK client.

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
 * Once at the start of every command: on Node < 22, one line on stderr (so --json output stays clean), and the
 * AWS SDK's own warning turned off with the switch the SDK documents for this, unless the user set it already.
 * ARIADNE_NO_NODE_WARNING=1 silences our line too (the test suite sets it: its CLI tests read stderr).
 */
export function warnIfOldNode(
  version: string = process.version,
  env: NodeJS.ProcessEnv = process.env,
  write: (line: string) => void = (line) => process.stderr.write(line),
): void {
  const notice = nodeVersionNotice(version);
  if (notice === undefined) return;
  // @aws-sdk/core reads it when the first client is built (emitWarningIfUnsupportedVersion), so setting it
  // before any client exists is enough; child processes inherit it.
  env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const silenced = env.ARIADNE_NO_NODE_WARNING;
  if (silenced === undefined || silenced === '' || silenced === '0') write(`${notice}\n`);
}
