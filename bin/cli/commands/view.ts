// ariadne view: the web viewer (viewer/server.ts) over the same store the other results commands read, until
// Ctrl-C. Live pages check for changes every --poll ms while one is open; on --aws the default is slower, and with
// no page open nothing is asked, so Aurora can pause.
import { serveUntilStopped } from '../interrupt.ts';
import { Option, type Command } from 'commander';
import type { SqlDatabase } from '../../../core/store/sql.ts';
import { withCliDatabase } from '../database.ts';
import { envString } from '../../../core/config/environment.ts';
import { EnvironmentError } from '../exit-codes.ts';
import { withExample } from '../help.ts';
import { intOption } from '../options.ts';
import { addResultsSourceOptions, withResultsDatabase, type ResultsSource } from '../results-database.ts';
import { openSqlDatabase } from '../../../core/store/open-sql-database.ts';
import { startViewer, type ViewerOptions } from '../../../viewer/server.ts';
import { InvalidInputError } from '../../../core/errors.ts';
import { localParameters } from '../local-parameters.ts';

interface ViewOptions extends ResultsSource {
  port: number;
  poll?: number;
  play?: boolean;
}

export function registerViewCommand(program: Command): void {
  const command = program
    .command('view')
    .description(
      'a live web viewer of experiments and sweeps (read-only, on localhost); with --play, a page to play a maze ' +
        'yourself as agent human',
    )
    .addOption(
      new Option('--port <port>', 'the port on 127.0.0.1 (0: any free port)')
        .default(8047)
        .argParser(intOption('--port', 0, 65535)),
    )
    .addOption(
      new Option(
        '--poll <ms>',
        'how often open live pages check for changes (default 1000; with --aws 5000)',
      ).argParser(intOption('--poll', 200, 60_000)),
    )
    .option(
      '--play',
      'also serve the play page (/play), where a person plays a maze as agent human, shown what a model is shown ' +
        '(the image format as its pictures); its games are written to the local database through the same engine ' +
        'as ariadne play. Not with --aws',
    );
  addResultsSourceOptions(command);
  withExample(command, 'ariadne view --port 8047');
  command.action(async (o: ViewOptions) => {
    if (o.aws && o.play)
      throw new InvalidInputError(
        '--play',
        true,
        "--play writes a person's games to the local database; a deployed stack's is read-only here: drop --aws " +
          'to play',
      );
    if (o.aws)
      return withResultsDatabase(o, (db, stack) =>
        serve(db, `stack ${stack!.stackName} (${stack!.region}, Data API)`, o.poll ?? 5000, o.port),
      );
    // locally, a pool of its own whose every transaction is read-only: the server itself refuses a write; the games
    // of --play write through the CLI's own connection, as ariadne play does
    await withCliDatabase(async (cli) => {
      const db = await openSqlDatabase({ url: cli.url, schema: cli.schema, readOnly: true, poolSize: 4 });
      try {
        const where = envString('DATABASE_URL') ? cli.displayUrl : 'embedded Postgres';
        const play = o.play ? { db: cli, parameters: localParameters() } : undefined;
        await serve(
          db,
          cli.schema === 'public' ? where : `${where}, schema ${cli.schema}`,
          o.poll ?? 1000,
          o.port,
          play,
        );
      } finally {
        await db.close();
      }
    });
  });
}

async function serve(
  db: SqlDatabase,
  source: string,
  pollMs: number,
  port: number,
  play?: ViewerOptions['play'],
): Promise<void> {
  const viewer = await startViewer({ db, source, pollMs, port, play }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE')
      throw new EnvironmentError(
        '--port',
        `port ${port} on 127.0.0.1 is in use (another ariadne view?): pick another with --port N, or --port 0 ` +
          'for any free port',
      );
    throw err;
  });
  process.stdout.write(`${viewer.url}\n`);
  process.stderr.write(
    play
      ? `ariadne view: read-only but for its play page (${viewer.url}play), on this machine only; Ctrl-C stops it ` +
          '(a game in progress is kept, interrupted: ariadne play --resume <id> goes on with it)\n'
      : 'ariadne view: read-only, on this machine only; Ctrl-C stops it\n',
  );
  await serveUntilStopped(() => viewer.close());
}
