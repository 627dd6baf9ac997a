// Where the API keys live: SecureStrings beside the settings' prefix, never under it. Reading a path reads every
// level below it ("If a user has access to a path, then the user can access all levels of that path", Systems
// Manager API Reference, GetParametersByPath), so keys under /ariadne would reach everyone who may read the
// settings: researchers, StartExperiment, RegisterSweep. Under /ariadne-secrets each key is read by its one function
// with GetParameter on its own name.
import type { LlmProvider } from '../machine/contracts.ts';
import { INVOKE_STATE } from '../machine/tasks.ts';

/** The keys Ariadne sends, by the provider that sends each. */
export const SECRET_OF_PROVIDER = {
  ollama: 'ollama_api_key',
  openai: 'openai_api_key',
} as const satisfies Partial<Record<LlmProvider, string>>;

/** The Task state whose function sends (and alone may read) each key. */
export const SECRET_READER = Object.fromEntries(
  Object.entries(SECRET_OF_PROVIDER).map(([provider, name]) => [
    name,
    INVOKE_STATE[provider as keyof typeof INVOKE_STATE],
  ]),
) as Record<SecretName, string>;

export type SecretName = (typeof SECRET_OF_PROVIDER)[keyof typeof SECRET_OF_PROVIDER];

export const SECRET_NAMES = Object.values(SECRET_OF_PROVIDER) as SecretName[];

/** The secrets' own path for a settings prefix: /ariadne -> /ariadne-secrets. */
export function secretsPath(prefix: string): string {
  return `${prefix.replace(/\/+$/, '')}-secrets`;
}

/** The parameter that holds one key: /ariadne-secrets/openai_api_key. */
export function secretParameterName(prefix: string, name: SecretName): string {
  return `${secretsPath(prefix)}/${name}`;
}

/** The key a provider sends; undefined for one that sends none (Bedrock signs with its role, baselines call none). */
export function secretOf(provider: string): SecretName | undefined {
  return Object.hasOwn(SECRET_OF_PROVIDER, provider)
    ? SECRET_OF_PROVIDER[provider as keyof typeof SECRET_OF_PROVIDER]
    : undefined;
}
