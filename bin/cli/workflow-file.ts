// A workflow YAML file on the command line: validated here (bad files exit 2
// with the YAML path and line of every problem), then offered to the experiment as the
// prompt version "<workflow>/v0" (v0: a local file, not a published version),
// on top of the local parameters.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidInputError } from '../../core/errors.ts';
import { loadWorkflow, WorkflowDefinitionError, type LoadedWorkflow } from '../../core/engine/workflow/definition.ts';
import { ParameterCache, type ParameterSource } from '../../core/config/parameters.ts';
import { describeFileError } from './file-errors.ts';
import { userDirectory } from './output-dir.ts';

export function readWorkflowFile(option: string, file: string): { text: string; workflow: LoadedWorkflow } {
  let text: string;
  try {
    text = readFileSync(resolve(userDirectory(), file), 'utf8');
  } catch (err) {
    throw new InvalidInputError(option, file, `${option} "${file}" cannot be read: ${describeFileError(err)}`);
  }
  try {
    return { text, workflow: loadWorkflow(text, file) };
  } catch (err) {
    if (err instanceof WorkflowDefinitionError) throw new InvalidInputError(option, file, `${option}: ${err.message}`);
    throw err;
  }
}

/** The local parameters (if any) plus the workflow as prompt version "<name>/v0"; returns that version. */
export function withWorkflowPrompt(
  base: ParameterSource | undefined,
  name: string,
  text: string,
): { parameters: ParameterCache; version: string } {
  const source: ParameterSource = {
    async readAll(prefix) {
      const params = base ? await base.readAll(prefix) : [];
      return [...params, { name: `${prefix}/prompts/${name}/v0`, value: text, secure: false }];
    },
    readSecret: (prefix, secret) => base?.readSecret(prefix, secret) ?? Promise.resolve(undefined),
  };
  return { parameters: new ParameterCache(source), version: `${name}/v0` };
}
