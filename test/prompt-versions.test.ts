// Prompt versions: v1 (and the shipped terse/v1) stay byte for byte what runs
// used, template and rendering both, so that old runs reproduce; v2 is the
// default for new runs; named versions from Parameter Store render as before
// and may use v2's parts; the workflow sample uses them too.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROMPTS } from '../core/config/prompts.ts';
import { ParameterCache } from '../core/config/parameters.ts';
import { fileSource } from '../core/config/file-source.ts';
import { OBSERVATION_FORMATS, type ExperimentConfigInput } from '../core/config/experiment-config.ts';
import { resolveConfig, systemPrompt } from '../core/engine/experiment.ts';
import { showsWholeMaze } from '../core/config/prompt-combinations.ts';
import { generateMaze } from '../core/maze/generators/index.ts';
import { readWorkflowFile } from '../bin/cli/workflow-file.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const ROOT = join(import.meta.dirname, '..');
const MAZE = generateMaze({ generator: 'medium', width: 15, height: 15, seed: 3 });

describe('v1 reproduces', () => {
  it('its template is the one runs stored (sha256 taken before v2 was added)', () => {
    expect(sha256(PROMPTS.v1)).toBe('f6355f7c2acf1b086009a92cae90fa48d3d1463339ac5ed24092e94e88b8e5c0');
  });

  it.each<[ExperimentConfigInput, string]>([
    [{}, 'f080589ecf95c4f73325f9ff69eafa9e77ff957219d4c0fd2d1756283a2b21fd'],
    [
      { recall_tool: false, success_rule: 'reached', vision_range: 2 },
      '2f7bd520d500033dd0798bf55832819aa36af08d4c1c3f8f4af731a1544276e3',
    ],
    [
      { observation: 'local_grid', memory: 'history', recall_interval: 0 },
      '3533ed6edeeca2525cc05e451d10a553ff84730c5087da1abb91e94d26ef785d',
    ],
  ])('rendered with %o: the same text as before v2 (its variables unchanged)', (config, hash) => {
    expect(sha256(systemPrompt(MAZE, resolveConfig({ ...config, prompt_version: 'v1' })))).toBe(hash);
  });

  it('config/parameters.yaml keeps terse/v1 as it was, and adds terse/v2', async () => {
    const { prompts } = await new ParameterCache(fileSource(join(ROOT, 'config', 'parameters.yaml'))).get();
    expect(sha256(prompts['terse/v1'])).toBe('304f82c103bf169024274da7743b873b9598368c8afd6f648fe52b617a293383');
    for (const observation of OBSERVATION_FORMATS) {
      const config = resolveConfig({ observation, success_rule: 'reached', prompt_version: 'terse/v2' });
      const text = systemPrompt(MAZE, config, prompts);
      expect(text).not.toMatch(/[{}]/);
      expect(text.includes('recall_all')).toBe(!showsWholeMaze(observation));
    }
  });
});

describe('v2', () => {
  it('is the default for new runs, and differs by what the experiment shows', () => {
    expect(resolveConfig({}).prompt_version).toBe('v2');
    const texts = OBSERVATION_FORMATS.map((observation) =>
      systemPrompt(MAZE, resolveConfig({ observation, success_rule: 'reached' })),
    );
    expect(new Set(texts).size).toBe(OBSERVATION_FORMATS.length);
    for (const text of texts) expect(text).toContain('a 2-D grid maze of 15x15 tiles'); // what the simulators read
  });

  it('a named version from Parameter Store renders with the old variables and the new parts alike', () => {
    const prompts = { 'study/v3': 'Maze {width}x{height}; {success_text}. {goal_text}' };
    const config = resolveConfig({ prompt_version: 'study/v3', success_rule: 'reached' });
    expect(systemPrompt(MAZE, config, prompts)).toBe(
      'Maze 15x15; you stand on the goal tile. The experiment ends when you stand on the goal tile; ' +
        'seeing it is not enough.',
    );
    expect(() => systemPrompt(MAZE, resolveConfig({ prompt_version: 'study/v4' }), prompts)).toThrow(
      /"study\/v4" is not defined; choose one of: v1, v2, study\/v3/,
    );
  });

  it("the sample workflow's system prompt takes v2's parts: no four-way vision under local_grid see_through", () => {
    const { text } = readWorkflowFile('--workflow', join(ROOT, 'examples', 'workflows', 'observe-plan-act.yaml'));
    const config = resolveConfig({ observation: 'local_grid', see_through: true, recall_tool: false });
    const rendered = systemPrompt(MAZE, config, { 'observe_plan_act/v0': text });
    expect(rendered).toContain('You see every tile of the square; walls do not block your view.');
    expect(rendered).not.toMatch(/four directions|recall_all to list/);
  });
});
