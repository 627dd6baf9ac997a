// The fields Inspect AI's log models require (inspect_ai/log/_log.py: a field without a default is required; the
// OpenAPI document its viewer ships lists them), with their types, written here as zod so every clone checks them.
// Inspect's own schema, when a copy is at hand (inspect-schema.ts), checks the rest.
import { z } from 'zod';

const usage = z.object({ input_tokens: z.number(), output_tokens: z.number(), total_tokens: z.number() });
const message = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]),
});
const score = z.object({ value: z.unknown(), history: z.array(z.unknown()) });
const stringOrList = z.union([z.string(), z.array(z.unknown())]);

const evalSpec = z.object({
  eval_id: z.string(),
  run_id: z.string(),
  created: z.string(),
  task: z.string(),
  task_id: z.string(),
  task_version: z.union([z.number().int(), z.string()]),
  task_attribs: z.record(z.string(), z.unknown()),
  task_args: z.record(z.string(), z.unknown()),
  task_args_passed: z.record(z.string(), z.unknown()),
  dataset: z.object({}).passthrough(),
  model: z.string(),
  model_generate_config: z.object({}).passthrough(),
  model_args: z.record(z.string(), z.unknown()),
  config: z.object({}).passthrough(),
  packages: z.record(z.string(), z.string()),
});

const sampleCommon = {
  id: z.union([z.number().int(), z.string()]),
  epoch: z.number().int(),
  input: stringOrList,
  target: stringOrList,
  metadata: z.record(z.string(), z.unknown()),
  model_usage: z.record(z.string(), usage),
  role_usage: z.record(z.string(), usage),
  scores: z.record(z.string(), score).nullable().optional(),
};

const SHAPES = {
  EvalLog: z.object({
    version: z.number().int(),
    status: z.enum(['started', 'success', 'cancelled', 'error']),
    eval: evalSpec,
    plan: z.object({ name: z.string(), steps: z.array(z.unknown()), config: z.object({}).passthrough() }),
    stats: z.object({
      started_at: z.string(),
      completed_at: z.string(),
      model_usage: z.record(z.string(), usage),
      role_usage: z.record(z.string(), usage),
      connection_limit_history: z.unknown(),
    }),
    invalidated: z.boolean(),
    tags: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
  }),
  EvalSample: z.object({
    ...sampleCommon,
    messages: z.array(message),
    output: z.object({ model: z.string(), choices: z.array(z.unknown()), completion: z.string() }),
    store: z.record(z.string(), z.unknown()),
    events: z.array(z.unknown()),
    attachments: z.record(z.string(), z.string()),
  }),
  EvalSampleSummary: z.object({ ...sampleCommon, completed: z.boolean() }),
};

/** Problems of `value` as Inspect's `type`, as "path message" lines; none when it has every required field. */
export function inspectShape(type: string): (value: unknown) => string[] {
  const shape = SHAPES[type as keyof typeof SHAPES] as z.ZodType | undefined;
  if (!shape) throw new Error(`no shape for Inspect's ${type}: ${Object.keys(SHAPES).join(', ')}`);
  return (value) => {
    const parsed = shape.safeParse(value);
    return parsed.success ? [] : parsed.error.issues.map((i) => `/${i.path.join('/')} ${i.message}`);
  };
}
