// The scenario "secrets": each API key is readable by the one function that sends it and by no other principal of
// the template, nor by a researcher. Decided by IAM's evaluation of every role of the template for GetParameter on
// each key's ARN, and proven with real requests: the owner reads its key through the SSM server, another function
// is refused it.
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { researcherPolicy } from '../lib/researcher-policy.ts';
import { SECRET_NAMES, SECRET_READER, secretParameterName, type SecretName } from '../core/config/secrets.ts';
import { stackOutputsOf } from './stack-outputs.ts';
import type { World } from './world.ts';

/** Thrown when a key is readable by a principal other than its function, or not by its function. */
class SecretsScenarioError extends Error {
  override readonly name = 'SecretsScenarioError';
}

/** The function (the state's handler) that sends each key, and alone may read it. */
const OWNER = SECRET_READER;

export async function secretsScenario(world: World): Promise<string> {
  const { model } = world;
  const env = model.values.env;
  const outputs = stackOutputsOf(model);
  model.addPrincipal('SecretsResearcher', researcherPolicy(outputs, { bedrock: true }));
  const principals = [...world.assembly.functions.map((f) => f.logicalId), 'SecretsResearcher'];
  const arn = (name: SecretName) =>
    `arn:aws:ssm:${env.region}:${env.account}:parameter${secretParameterName('/ariadne', name)}`;
  const readers: Record<string, string[]> = {};
  for (const name of SECRET_NAMES) {
    readers[name] = [];
    for (const principal of principals) {
      const decision = await model.authorize({ principal, action: 'ssm:GetParameter', resource: arn(name) });
      if (decision.allowed) readers[name].push(principal);
    }
    const owner = readers[name].filter((p) => p.includes(OWNER[name]));
    if (readers[name].length !== 1 || owner.length !== 1)
      throw new SecretsScenarioError(
        `${secretParameterName('/ariadne', name)} is readable by ${readers[name].join(', ') || 'no principal'}: ` +
          `expected ${OWNER[name]}'s function alone`,
      );
  }
  // Real requests: each owner reads its key; each reads the other's and is refused.
  const { ssm } = world.sims;
  for (const name of SECRET_NAMES)
    ssm.parameters = [
      ...ssm.parameters.filter((p) => p.name !== secretParameterName('/ariadne', name)),
      { name: secretParameterName('/ariadne', name), value: `rehearsal-${name}`, type: 'SecureString' },
    ];
  const clientOf = (logicalId: string) =>
    new SSMClient({
      region: env.region,
      endpoint: world.endpoints.AWS_ENDPOINT_URL_SSM,
      credentials: { accessKeyId: model.principal(logicalId).accessKeyId, secretAccessKey: 'rehearsal-secret' },
      maxAttempts: 1,
    });
  const get = (client: SSMClient, name: SecretName) =>
    client
      .send(new GetParameterCommand({ Name: secretParameterName('/ariadne', name), WithDecryption: true }))
      .then((r) => r.Parameter?.Value ?? null)
      .catch((err: Error) => err.name);
  let refused = 0;
  for (const name of SECRET_NAMES) {
    const owner = readers[name][0];
    const client = clientOf(owner);
    try {
      const own = await get(client, name);
      if (own !== `rehearsal-${name}`) throw new SecretsScenarioError(`${owner} could not read its key: ${own}`);
      for (const other of SECRET_NAMES.filter((n) => n !== name)) {
        const { result, denied } = await world.authorizer.expectingDenials(() => get(client, other));
        if (result !== 'AccessDeniedException' || denied.length !== 1)
          throw new SecretsScenarioError(`${owner} read ${other}: ${result}`);
        refused++;
      }
    } finally {
      client.destroy();
    }
  }
  return (
    `${principals.length} principals (every function of the template and a researcher with --bedrock) evaluated: ` +
    SECRET_NAMES.map((n) => `${n} by ${OWNER[n]} only`).join(', ') +
    `; each owner read its key through SSM, ${refused} reads of another's key refused`
  );
}
