// The log file of the commands that run experiments (run, resume, sweep): the JSON lines the Lambda functions write
// to CloudWatch Logs (core/telemetry), appended to <log dir>/ariadne-<UTC date>.jsonl, and with --verbose also
// streamed to stderr. Each line is written at once (one write of a whole line, appended): a run that is killed keeps
// every line it wrote, and runs in parallel interleave whole lines.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { jsonLinesTelemetry } from '../../core/telemetry/json-lines.ts';
import type { Telemetry } from '../../core/telemetry/telemetry.ts';
import { logDir } from '../../core/store/data-dir.ts';
import { EnvironmentError } from './exit-codes.ts';
import { describeFileError, isFileError } from './file-errors.ts';

export interface RunLog {
  telemetry: Telemetry;
  /** The file the lines are appended to. */
  path: string;
  close(): void;
}

/** Opens today's log file (creating its directory); refused, naming ARIADNE_LOG_DIR, when it cannot be written. */
export function openRunLog(opts: { verbose?: boolean; now?: () => Date } = {}): RunLog {
  const now = opts.now ?? (() => new Date());
  const dir = logDir();
  const path = join(dir, `ariadne-${now().toISOString().slice(0, 10)}.jsonl`);
  let fd: number;
  try {
    mkdirSync(dir, { recursive: true });
    fd = openSync(path, 'a');
  } catch (err) {
    if (!isFileError(err)) throw err;
    throw new EnvironmentError(
      'ARIADNE_LOG_DIR',
      `the log file ${path} cannot be written: ${describeFileError(err)}; set ARIADNE_LOG_DIR to a directory you ` +
        'can write',
    );
  }
  let open = true;
  const telemetry = jsonLinesTelemetry((line) => {
    if (!open) return;
    writeSync(fd, `${line}\n`);
    if (opts.verbose) process.stderr.write(`${line}\n`);
  }, now);
  return {
    telemetry,
    path,
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}
