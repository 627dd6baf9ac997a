// Where the CLI writes files (replay, report, export, maze --out): one output directory, by default
// ariadne-output/ in the directory the user ran the command from, so results land where the user looks and
// nowhere else. Every target is checked before any work starts, and a path that cannot be written is an input
// error naming the option and its value, in words.
import { accessSync, constants, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { InvalidInputError } from '../../core/errors.ts';
import { EnvironmentError } from './exit-codes.ts';
import { describeFileError, isFileError, isStorageFailure } from './file-errors.ts';
import { envString } from '../../core/config/environment.ts';

const DEFAULT_DIR = 'ariadne-output';

/** A path the command will write, and the option (or variable) it came from, for messages. */
export interface OutputTarget {
  path: string;
  option: string;
  value: string;
}

/** The directory the user typed the command in: `npm run` moves cwd to the package root and keeps it in INIT_CWD. */
export function userDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return envString('INIT_CWD', env) ?? process.cwd();
}

/** --out-dir, on the program (for every command) and on each command that writes files. */
export function outDirOption(): Option {
  return new Option(
    '--out-dir <dir>',
    `directory for the files written (default: $ARIADNE_OUTPUT_DIR, else ${DEFAULT_DIR}/ in the directory you run ` +
      'ariadne from); created if missing',
  );
}

/** The error a file system call would have thrown, for what a stat shows (a file where a directory must be). */
const fileError = (code: string): NodeJS.ErrnoException => Object.assign(new Error(code), { code, syscall: 'stat' });

/** The error for `target`: the option, its value, the absolute path and what happened, in words. */
export function outputError(target: OutputTarget, err: unknown, what = 'cannot be written', hint = ''): Error {
  const message = `${target.option} "${target.value}" ${what} (${target.path}): ${describeFileError(err)}${hint}`;
  return isStorageFailure(err)
    ? new EnvironmentError(target.option, message)
    : new InvalidInputError(target.option, target.value, message);
}

/** The output directory: this command's --out-dir, else the program's, else $ARIADNE_OUTPUT_DIR, else the default. */
export function outputDirectory(cmd: Command): OutputTarget {
  let given: string | undefined;
  for (let c: Command | null = cmd; c && given === undefined; c = c.parent)
    given = c.opts<{ outDir?: string }>().outDir;
  const fromEnv = envString('ARIADNE_OUTPUT_DIR');
  const [option, value] =
    given !== undefined
      ? ['--out-dir', given]
      : fromEnv !== undefined
        ? ['ARIADNE_OUTPUT_DIR', fromEnv]
        : ['--out-dir', DEFAULT_DIR];
  const target = { path: resolve(userDirectory(), value), option, value };
  try {
    // mkdir of an existing file fails with EEXIST, which would read "already exists": say what is wrong instead
    if (statSync(target.path, { throwIfNoEntry: false })?.isDirectory() === false) throw fileError('ENOTDIR');
    mkdirSync(target.path, { recursive: true });
    accessSync(target.path, constants.W_OK);
  } catch (err) {
    if (!isFileError(err)) throw err;
    throw outputError(target, err, 'cannot be used as the output directory');
  }
  return target;
}

/**
 * A file to write: `out` as given (relative to the user's directory; its directory must exist), else `name` in the
 * output directory (created). Checked now, before the command does its work.
 */
export function outputFile(cmd: Command, out: string | undefined, name: string, option = '--out'): OutputTarget {
  if (out === undefined) {
    const dir = outputDirectory(cmd);
    return { ...dir, path: resolve(dir.path, name) };
  }
  const target = { path: resolve(userDirectory(), out), option, value: out };
  try {
    const parent = statSync(dirname(target.path));
    if (!parent.isDirectory()) throw fileError('ENOTDIR');
    accessSync(dirname(target.path), constants.W_OK);
    const existing = statSync(target.path, { throwIfNoEntry: false });
    if (existing?.isDirectory()) throw fileError('EISDIR');
    if (existing) accessSync(target.path, constants.W_OK);
  } catch (err) {
    if (!isFileError(err)) throw err;
    // only the output directory is created for you: a named file's directory missing is more likely a typo
    const hint = err.code === 'ENOENT' ? `; create ${dirname(target.path)} first` : '';
    throw outputError(target, err, 'cannot be written', hint);
  }
  return target;
}

/** Writes `content` to the target; returns the absolute path and the size in bytes. */
export function writeOutput(target: OutputTarget, content: string): { path: string; bytes: number } {
  try {
    writeFileSync(target.path, content);
  } catch (err) {
    if (!isFileError(err)) throw err;
    throw outputError(target, err);
  }
  return writtenFile(target.path);
}

/** A file size for people: 812 B, 14.2 KB, 3.1 MB. */
export function describeSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The size of a file just written, for the JSON every file-writing command prints. */
export function writtenFile(path: string): { path: string; bytes: number } {
  return { path, bytes: statSync(path).size };
}
