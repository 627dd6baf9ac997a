// ariadne view: the web viewer (viewer/server.ts) over the same store the other results commands read, until
// Ctrl-C. Live pages check for changes every --poll ms while one is open; on --aws the default is slower, and with
// no page open nothing is asked, so Aurora can pause.
import { Option, type Command } from 'commander';
import { startViewer } from '../../../viewer/server.ts';
import { withExample } from '../help.ts';
import { intOption } from '../options.ts';
import { addResultsSourceOptions, withResultsDatabase, type ResultsSource } from '../results-database.ts';

interface ViewOptions extends ResultsSource {
  port: number;
  poll?: number;
}

export function registerViewCommand(program: Command): void {
  const command = program
    .command('view')
    .description('a live web viewer of experiments and sweeps (read-only, on localhost)')
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
    );
  addResultsSourceOptions(command);
  withExample(command, 'ariadne view --port 8047');
  command.action(async (o: ViewOptions) => {
    await withResultsDatabase(o, async (db, stack) => {
      const viewer = await startViewer({
        db,
        source: stack ? `stack ${stack.stackName} (${stack.region}, Data API)` : `${db.transport} database`,
        pollMs: o.poll ?? (stack ? 5000 : 1000),
        port: o.port,
      });
      process.stdout.write(`${viewer.url}\n`);
      process.stderr.write('ariadne view: read-only, on this machine only; Ctrl-C stops it\n');
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await viewer.close();
    });
  });
}
