// `ariadne secret set NAME`: puts an API key where the stack's function that sends it reads it (a SecureString under
// <prefix>-secrets, core/config/secrets.ts), from standard input or a hidden prompt, so the value lands in no
// shell history and no process list. The admin's command: no researcher policy grants ssm:PutParameter.
import { Argument, type Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import { SECRET_NAMES, SECRET_READER, secretParameterName, type SecretName } from '../../../core/config/secrets.ts';
import { withExample } from '../help.ts';
import { endpointOption, jsonOption } from '../options.ts';
import { readHidden, readStdin } from '../secret-input.ts';
import { commandPrefix } from '../invocation.ts';

interface SecretOptions {
  region?: string;
  prefix: string;
  kmsKeyId?: string;
  endpoint?: string;
  json?: boolean;
}

async function setSecret(name: SecretName, o: SecretOptions): Promise<void> {
  const parameter = secretParameterName(o.prefix, name);
  const value = process.stdin.isTTY ? await readHidden(`${name} (not shown): `) : await readStdin();
  if (value === '')
    throw new InvalidInputError(
      'NAME',
      name,
      `no value for ${name} was given: pipe it in (${commandPrefix()} secret set ${name} < key.txt) ` +
        'or type it at the prompt',
    );
  const { PutParameterCommand, SSMClient } = await import('@aws-sdk/client-ssm');
  const client = new SSMClient({
    ...(o.region ? { region: o.region } : {}),
    ...(o.endpoint ? { endpoint: o.endpoint } : {}),
    maxAttempts: 3,
  });
  try {
    const { Version } = await client.send(
      new PutParameterCommand({
        Name: parameter,
        Value: value,
        Type: 'SecureString',
        Overwrite: true,
        ...(o.kmsKeyId ? { KeyId: o.kmsKeyId } : {}),
      }),
    );
    if (o.json) {
      process.stdout.write(
        `${JSON.stringify({ parameter, version: Version, read_by: SECRET_READER[name] }, null, 2)}\n`,
      );
      return;
    }
    process.stdout.write(
      `stored ${parameter} (SecureString, version ${Version}); only ${SECRET_READER[name]} may read it, ` +
        'from its next cold start or within a minute\n',
    );
  } finally {
    client.destroy();
  }
}

/** The keys, where each lives and which function reads it: what `ariadne secret` prints (no AWS call). */
function listSecrets(o: { prefix: string; json?: boolean }): void {
  const rows = SECRET_NAMES.map((name) => ({
    name,
    parameter: secretParameterName(o.prefix, name),
    read_by: SECRET_READER[name],
  }));
  if (o.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  for (const r of rows) process.stdout.write(`${r.name.padEnd(16)} ${r.parameter.padEnd(34)} read by ${r.read_by}\n`);
  process.stdout.write(
    `set one with: ${commandPrefix()} secret set NAME (from standard input, or a prompt that hides it)\n`,
  );
}

export function registerSecretCommands(program: Command): void {
  const secret = program
    .command('secret')
    .description(
      "the API keys the stack's functions send, each readable by the one function that sends it: lists them, " +
        'where each lives and which function reads it; secret set stores one',
    )
    .option('--prefix <path>', "the stack's parameter prefix (the keys go beside it, under PREFIX-secrets)", '/ariadne')
    .addOption(jsonOption('the keys as JSON'))
    .action((o: { prefix: string; json?: boolean }) => listSecrets(o));
  withExample(secret, 'ariadne secret');
  const set = secret
    .command('set')
    .description(
      'store an API key as a SecureString for the deployed stack, read from standard input (or a prompt that does ' +
        'not show it), never from the command line',
    )
    .addArgument(new Argument('<name>', 'which key').choices(SECRET_NAMES))
    .option('--region <region>', 'the Region the stack is deployed in (default: AWS_REGION, then your AWS profile)')
    .option('--prefix <path>', "the stack's parameter prefix (the keys go beside it, under PREFIX-secrets)", '/ariadne')
    .option('--kms-key-id <id>', 'a customer managed KMS key (the stack deployed with parametersKmsKeyArn)')
    .addOption(endpointOption('SSM endpoint override (default: $AWS_ENDPOINT_URL_SSM)'))
    .addOption(jsonOption('the parameter, its version and the function that reads it, as JSON'))
    .action((name: SecretName, o: SecretOptions) => setSecret(name, o));
  withExample(set, 'ariadne secret set openai_api_key');
}
