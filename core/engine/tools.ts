// The agent's tools: names, argument schemas and the JSON-schema form LLM
// providers advertise.
import { z } from 'zod';
import type { Direction } from '../maze/grid.ts';

export const MOVE_TOOLS = {
  move_north: 'north',
  move_south: 'south',
  move_east: 'east',
  move_west: 'west',
} as const satisfies Record<string, Direction>;
export type MoveTool = keyof typeof MOVE_TOOLS;
export const RECALL_TOOL = 'recall_all';
export type ToolName = MoveTool | typeof RECALL_TOOL;
export const TOOL_NAMES: ToolName[] = [...(Object.keys(MOVE_TOOLS) as MoveTool[]), RECALL_TOOL];

const MAX_REASONING = 20_000;
export const moveArgsSchema = z.object({ reasoning: z.string().max(MAX_REASONING).optional() }).strict();
export const recallArgsSchema = z.object({}).strict();

/** A tool call as an agent produced it: arguments not yet validated. */
export interface ToolCall {
  name: string;
  arguments: unknown;
  id?: string;
  parsedFromText?: boolean;
}

export interface ToolSpec {
  name: ToolName;
  description: string;
  parameters: Record<string, unknown>;
}

const TOOL_SPECS: ToolSpec[] = [
  ...(Object.entries(MOVE_TOOLS) as Array<[MoveTool, Direction]>).map(([name, dir]) => ({
    name,
    description: `Move one tile ${dir}. Fails (you stay put) if a wall or the edge of the maze is there.`,
    parameters: {
      type: 'object',
      properties: { reasoning: { type: 'string', description: 'Why you chose this move.' } },
      additionalProperties: false,
    },
  })),
  {
    name: RECALL_TOOL,
    description: 'Recall every tile you saw during your recent actions. Limited by a cooldown between calls.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
  },
];

/** The tools an experiment offers: recall_all only when config.recall_tool is on. */
export function offeredTools(config: { recall_tool: boolean }): ToolSpec[] {
  return config.recall_tool ? TOOL_SPECS : TOOL_SPECS.filter((t) => t.name !== RECALL_TOOL);
}

export function isMoveTool(name: string): name is MoveTool {
  return Object.hasOwn(MOVE_TOOLS, name);
}
