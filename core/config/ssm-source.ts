// Parameter Store through @aws-sdk/client-ssm: the settings in one recursive GetParametersByPath, following
// NextToken to the last page, not decrypted (no setting is secret); each API key alone with GetParameter, decrypted,
// so a function needs a grant on its own key's name only.
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { ParameterSource, RawParameter } from './parameters.ts';
import { secretParameterName } from './secrets.ts';

/** The SDK, loaded once, by the first read: the CLI imports this, and most of its commands never reach AWS. */
let ssmModule: Promise<typeof import('@aws-sdk/client-ssm')> | undefined;
const sdk = () => (ssmModule ??= import('@aws-sdk/client-ssm'));

export function ssmSource(given?: SSMClient): ParameterSource {
  let made: SSMClient | undefined;
  const client = async () => given ?? (made ??= new (await sdk()).SSMClient({}));
  return {
    async readAll(prefix) {
      const { GetParametersByPathCommand } = await sdk();
      const out: RawParameter[] = [];
      let token: string | undefined;
      do {
        const page = await (
          await client()
        ).send(new GetParametersByPathCommand({ Path: prefix, Recursive: true, MaxResults: 10, NextToken: token }));
        for (const p of page.Parameters ?? []) {
          if (p.Name && p.Value !== undefined)
            out.push({ name: p.Name, value: p.Value, secure: p.Type === 'SecureString' });
        }
        token = page.NextToken;
      } while (token);
      return out;
    },
    async readSecret(prefix, name) {
      const { GetParameterCommand, ParameterNotFound } = await sdk();
      try {
        const { Parameter } = await (
          await client()
        ).send(new GetParameterCommand({ Name: secretParameterName(prefix, name), WithDecryption: true }));
        return Parameter?.Value;
      } catch (err) {
        if (err instanceof ParameterNotFound) return undefined;
        throw err;
      }
    },
  };
}
