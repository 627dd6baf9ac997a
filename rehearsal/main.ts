// `npm run rehearse`: the deploy rehearsal on this machine (DATABASE_URL, else
// the embedded Postgres), its table on stdout; exit 1 on any denial, quota
// violation or failed scenario.
import { startEmbeddedPostgres } from '../lambdas/store/embedded.ts';
import { formatReport, passed, rehearse } from './rehearse.ts';

// Node 20 is said once by the CLI; the SDK clients here would each add their NodeVersionSupportWarning.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

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
