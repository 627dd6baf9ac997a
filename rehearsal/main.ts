// `npm run rehearse [-- SCENARIO...]`: the deploy rehearsal on this machine
// (DATABASE_URL, else the embedded Postgres), every scenario or those named,
// its table on stdout; exit 1 on any denial, quota violation or failed scenario.
import { startEmbeddedPostgres } from '../core/store/embedded.ts';
import { formatReport, passed, rehearse } from './rehearse.ts';
import { envDefault, envString } from '../core/config/environment.ts';

// Node 20 is said once by the CLI; the SDK clients here would each add their NodeVersionSupportWarning.
envDefault('AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED', 'true');

const databaseUrl = envString('DATABASE_URL');
const server = databaseUrl ? null : await startEmbeddedPostgres();
try {
  const named = process.argv.slice(2);
  const report = await rehearse({
    databaseUrl: databaseUrl ?? server!.url,
    ...(named.length ? { scenarios: named } : {}),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`${formatReport(report)}\n`);
  process.exitCode = passed(report) ? 0 : 1;
} finally {
  await server?.stop();
}
