// A scenario acting as a person on a laptop (a researcher, an administrator) calls the CLI's own functions in this
// process: their AWS SDK clients read credentials and endpoints from the environment, so it is set for the call.

/** `fn` with `env` set in this process's environment, then the environment as it was. */
export async function withProcessEnv<T>(env: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    return await fn();
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}
