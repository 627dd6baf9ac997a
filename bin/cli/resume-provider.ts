// `ariadne resume` checks the model host as `run` does before going on, and may move an interrupted run to another
// host (--ollama-host, --openai-base-url): the host changes in the experiment's stored config, so its record says
// which host answered the rest of the run.
import { InvalidInputError } from '../../core/errors.ts';
import { ollamaHostUrl, type ExperimentConfigInput } from '../../core/config/experiment-config.ts';
import type { Sql } from '../../core/store/sql.ts';
import { runningConfig } from '../../results/running-config.ts';
import { setConfigValue } from '../../core/store/config-value.ts';
import { preflightAgents } from './preflight.ts';

export interface ResumeProviderOptions {
  ollamaHost?: string;
  openaiBaseUrl?: string;
}

/** The new host, as a config section and the JSON path it is stored at; null when none was given. */
function hostChange(agent: string, o: ResumeProviderOptions): { path: string[]; value: string } | null {
  for (const [option, value, wants, path] of [
    ['--ollama-host', o.ollamaHost, 'ollama', ['ollama', 'host']],
    ['--openai-base-url', o.openaiBaseUrl, 'openai', ['openai', 'base_url']],
  ] as const) {
    if (value === undefined) continue;
    if (agent !== wants)
      throw new InvalidInputError(
        option,
        value,
        `${option} is for an ${wants} run; this experiment's agent is ${agent}: leave ${option} out`,
      );
    return { path: [...path], value: wants === 'ollama' ? ollamaHostUrl(value) : value };
  }
  return null;
}

/**
 * Before a resume: the provider preflight of `run` on the host the rest of the run will use, then that host stored
 * in place of the old one. An experiment that is not there or not running is left to resumeInput to refuse.
 */
export async function prepareResume(db: Sql, id: string, o: ResumeProviderOptions, parameters?: ExperimentConfigInput) {
  const e = await runningConfig(db, id);
  if (!e) return;
  const change = hostChange(e.agent, o);
  const config = structuredClone(e.config) as Record<string, Record<string, unknown>>;
  if (change) config[change.path[0]] = { ...config[change.path[0]], [change.path[1]]: change.value };
  await preflightAgents([{ agent: e.agent, model: e.model, config }], parameters);
  if (change) await setConfigValue(db, id, change.path, change.value);
}
