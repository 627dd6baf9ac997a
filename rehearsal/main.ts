// `npm run rehearse`: the deploy rehearsal on this machine (DATABASE_URL, else
// the embedded Postgres), its table on stdout; exit 1 on any denial, quota
// violation or failed scenario.
import { startEmbeddedPostgres } from '../lambdas/store/embedded.ts';
import { formatReport, passed, rehearse } from './rehearse.ts';

const server = process.env.DATABASE_URL ? null : await startEmbeddedPostgres();
try {
  const report = await rehearse({
    databaseUrl: process.env.DATABASE_URL ?? server!.url,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`${formatReport(report)}\n`);
  process.exitCode = passed(report) ? 0 : 1;
} finally {
  await server?.stop();
}
