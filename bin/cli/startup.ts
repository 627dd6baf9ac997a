// The CLI's start-up compiled to JavaScript (bin/compile-cli.ts bundles this file into dist/; bin/ariadne.js runs
// it): the whole program, its options, help, --version and usage errors, answered without tsx's loader. A command
// that runs is handed back before its action, to the TypeScript sources under tsx (bin/ariadne.ts), which parse the
// same arguments again: one copy of every module a command loads, so its errors are the classes printError knows.
import { printError } from './errors.ts';
import { buildProgram } from './program.ts';

/** Thrown before any action: the command runs from the sources. */
class CommandRunsError extends Error {
  override readonly name = 'CommandRunsError';
}

/**
 * The exit code when `argv` asks for no action (help, the version, a usage error), after commander has printed
 * what it prints; undefined when a command is to run.
 */
export async function answerWithoutActions(argv: string[]): Promise<number | undefined> {
  // as bin/ariadne.ts: `ariadne --help | head` closes the pipe early, which is not an error
  const onError = (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  };
  process.stdout.on('error', onError);
  const program = buildProgram().hook('preAction', () => {
    throw new CommandRunsError();
  });
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    if (!(err instanceof CommandRunsError)) return printError(err);
    process.stdout.off('error', onError);
    return undefined;
  }
}
