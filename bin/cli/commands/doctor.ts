// `ariadne doctor`: with --aws, a deployed stack checked from the researcher's side (credentials and Region, the
// stack's outputs, the database through the Data API, its migrations, the parameters, Bedrock models with
// --bedrock, the caller's own permissions); with --aws --template, the account before a deploy (doctor-plan.ts);
// without, the local database. Exit 3 when a check fails.
import type { Command } from 'commander';
import type { Check } from '../doctor/check.ts';
import { EXIT } from '../exit-codes.ts';
import { InvalidInputError } from '../../../core/errors.ts';
import { withExample } from '../help.ts';
import { jsonOption } from '../options.ts';
import { addResultsSourceOptions, stackDatabaseTarget, type ResultsSource } from '../results-database.ts';
import { withCliDatabase } from '../database.ts';
import { doctor, localDoctor } from '../doctor/deployed.ts';
import { doctorLines } from '../doctor/check.ts';
import { doctorBeforeDeploy } from '../doctor/before-deploy.ts';
import { openSqlDatabase } from '../../../core/store/open-sql-database.ts';

async function run(o: ResultsSource & { json?: boolean; bedrock?: boolean; template?: string }): Promise<void> {
  // the AWS SDK clients of the checks load when the command runs, not when the CLI starts
  let checks: Check[];
  if (o.template) {
    if (!o.aws) throw new InvalidInputError('--template', o.template, '--template checks an AWS account: add --aws');
    checks = await doctorBeforeDeploy({ template: o.template, stack: o.stack, region: o.region, bedrock: o.bedrock });
  } else if (o.aws) {
    checks = await doctor({
      stack: o.stack,
      region: o.region,
      bedrock: o.bedrock,
      openDatabase: (out) => openSqlDatabase(stackDatabaseTarget(out)),
    });
  } else checks = await withCliDatabase((db) => localDoctor(db));
  process.stdout.write(o.json ? `${JSON.stringify(checks, null, 2)}\n` : `${doctorLines(checks).join('\n')}\n`);
  if (checks.some((c) => !c.ok)) process.exitCode = EXIT.environment;
}

export function registerDoctorCommand(program: Command): void {
  const command = program
    .command('doctor')
    .description(
      'check a deployment from your side (with --aws: credentials, the stack, its database, migrations, ' +
        'parameters), or the local database; one line per check, each failure with its fix',
    );
  addResultsSourceOptions(command)
    .option(
      '--bedrock',
      'with --aws: also a one-token Bedrock call per model the deployment grants (needs policy researcher --bedrock)',
    )
    .option(
      '--template <path>',
      'with --aws, before a deploy: the account checked for the synthesized stack (cdk.out): credentials, CDK ' +
        "bootstrap, the stack's status, Lambda concurrency, and with --bedrock the models it grants",
    )
    .addOption(jsonOption('the checks as JSON'))
    .action(run);
  withExample(command, 'ariadne doctor --aws --stack Ariadne --region eu-west-1 --bedrock');
}
