// Parameter Store through @aws-sdk/client-ssm: one recursive, decrypted
// GetParametersByPath, following NextToken to the last page.
import { GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { ParameterSource, RawParameter } from './parameters.ts';

export function ssmSource(client: SSMClient = new SSMClient({})): ParameterSource {
  return {
    async readAll(prefix) {
      const out: RawParameter[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new GetParametersByPathCommand({
            Path: prefix,
            Recursive: true,
            WithDecryption: true,
            MaxResults: 10,
            NextToken: token,
          }),
        );
        for (const p of page.Parameters ?? []) {
          if (p.Name && p.Value !== undefined)
            out.push({ name: p.Name, value: p.Value, secure: p.Type === 'SecureString' });
        }
        token = page.NextToken;
      } while (token);
      return out;
    },
  };
}
