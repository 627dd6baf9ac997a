// Configuration from Parameter Store (locally, a file with the same names), under one prefix:
// <prefix>/config/<key>[/<subkey>] experiment defaults, <prefix>/prompts/<name>/v<N> prompt texts, and
// <prefix>/deployment/<name> facts the stack writes about itself. Read in one by-path call (not decrypted: no setting
// is secret) and kept for a TTL, so a warm Lambda does not call SSM every turn; values pass the experiment config's
// schema and a bad one names its parameter. The API keys live beside the prefix (secrets.ts says why).
import { isForbiddenKey } from './forbidden-keys.ts';
import { secretsPath, type SecretName } from './secrets.ts';
import { partialConfigSchema, type ExperimentConfigInput } from './experiment-config.ts';

export interface RawParameter {
  name: string;
  value: string;
  secure: boolean;
}

/** Where parameters come from: SSM in AWS, a file on a laptop, anything in tests. */
export interface ParameterSource {
  readAll(prefix: string): Promise<RawParameter[]>;
  /** One API key, decrypted (secrets.ts: <prefix>-secrets/<name>); undefined when none is stored. */
  readSecret(prefix: string, name: SecretName): Promise<string | undefined>;
}

export class InvalidParameterError extends Error {
  override readonly name = 'InvalidParameterError';
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ResolvedParameters {
  /** Experiment config defaults from <prefix>/config/... (partial: code defaults fill the rest). */
  config: ExperimentConfigInput;
  /** Prompt texts by version name ("<name>/v<N>"). */
  prompts: Record<string, string>;
  /** What the stack wrote about the deployment, by name (e.g. bedrock_models: "id1,id2"); never a setting. */
  deployment: Record<string, string>;
}

const partialConfig = partialConfigSchema;

/** Numbers and booleans as such, JSON objects parsed, anything else a string. */
function coerce(value: string): unknown {
  const v = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (v === 'true' || v === 'false') return v === 'true';
  if (v.startsWith('{') || v.startsWith('[')) {
    try {
      return JSON.parse(v);
    } catch {
      return value;
    }
  }
  return value;
}

export function resolveParameters(prefix: string, params: RawParameter[]): ResolvedParameters {
  const root = prefix.replace(/\/+$/, '');
  const config: Record<string, unknown> = {};
  const origin = new Map<string, RawParameter>();
  const prompts: Record<string, string> = {};
  const deployment: Record<string, string> = {};
  for (const p of params) {
    if (!p.name.startsWith(`${root}/`)) continue;
    const [section, ...rest] = p.name.slice(root.length + 1).split('/');
    if (section === 'secrets')
      throw new InvalidParameterError(
        p.name,
        `${p.name}: keys no longer live under ${root}, where everyone who may read the settings could read them; ` +
          `move it to ${secretsPath(root)}/${rest.join('/')} (on AWS: ariadne secret set ${rest.join('/')}, then ` +
          `aws ssm delete-parameter --name ${p.name}; locally: rename the key in the parameters file)`,
      );
    if (p.secure)
      throw new InvalidParameterError(
        p.name,
        `${p.name} is a SecureString among the settings; ` +
          `keep keys under ${secretsPath(root)}/ so they stay out of snapshots and out of the settings' readers`,
      );
    if (section === 'prompts' && rest.length === 2 && /^v\d+$/.test(rest[1])) {
      prompts[rest.join('/')] = p.value;
      continue;
    }
    if (section === 'deployment' && rest.length === 1 && !isForbiddenKey(rest[0])) {
      deployment[rest[0]] = p.value;
      continue;
    }
    if (rest.some(isForbiddenKey))
      throw new InvalidParameterError(
        p.name,
        `${p.name}: the name part "${rest.find(isForbiddenKey)}" is not allowed (it could reach object prototypes)`,
      );
    if (section === 'config' && rest.length >= 1 && rest.length <= 2) {
      let node = config;
      for (const key of rest.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
      node[rest.at(-1)!] = coerce(p.value);
      origin.set(rest.join('.'), p);
      continue;
    }
    throw new InvalidParameterError(
      p.name,
      `${p.name} is not a known Ariadne parameter; ` +
        `use ${root}/config/<key>, ${root}/prompts/<name>/v<N> or ${root}/deployment/<name>`,
    );
  }
  const parsed = partialConfig.safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // an unknown key is reported at its parent, with the key in `keys`
    const path = [...issue.path.map(String), ...(issue.code === 'unrecognized_keys' ? [issue.keys[0]] : [])];
    // the parameter is the longest dotted prefix of the issue's path that we read
    let source: RawParameter | undefined;
    for (let n = path.length; n > 0 && !source; n--) source = origin.get(path.slice(0, n).join('.'));
    const name = source?.name ?? `${root}/config/${path.join('/')}`;
    const shown = source ? (source.secure ? '(secure value)' : JSON.stringify(source.value).slice(0, 80)) : 'nothing';
    throw new InvalidParameterError(name, `parameter ${name}: ${issue.message} (got ${shown})`);
  }
  return { config, prompts, deployment };
}

/** Loads and validates parameters, at most once per TTL. */
export class ParameterCache {
  private cached: { at: number; value: ResolvedParameters } | null = null;
  private pending: Promise<ResolvedParameters> | null = null;
  private readonly secrets = new Map<SecretName, { at: number; value: string | undefined }>();
  constructor(
    private readonly source: ParameterSource,
    readonly prefix = '/ariadne',
    private readonly ttlMs = 60_000,
    private readonly now = () => Date.now(),
  ) {}

  async get(): Promise<ResolvedParameters> {
    if (this.cached && this.now() - this.cached.at < this.ttlMs) return this.cached.value;
    this.pending ??= this.source
      .readAll(this.prefix)
      .then((raw) => resolveParameters(this.prefix, raw))
      .then((value) => {
        this.cached = { at: this.now(), value };
        return value;
      })
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  /** One API key, read on its own (never with the settings) and kept for the same TTL. */
  async secret(name: SecretName): Promise<string | undefined> {
    const hit = this.secrets.get(name);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const value = await this.source.readSecret(this.prefix, name);
    this.secrets.set(name, { at: this.now(), value });
    return value;
  }
}
