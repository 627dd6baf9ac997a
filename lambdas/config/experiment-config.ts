// Limits and rules of one experiment. Defaults are the classic setup; the
// resolved object is snapshotted into the experiment row at start so a later
// change of defaults or parameters never alters a running experiment.
import { z } from 'zod';

export const SUCCESS_RULES = ['seen', 'reached'] as const;

export const experimentConfigSchema = z.object({
  max_moves: z.number().int().min(1).max(1_000_000).default(10_000),
  max_duration_minutes: z.number().min(0.01).max(7 * 24 * 60).default(120),
  max_actions_per_turn: z.number().int().min(1).max(64).default(8),
  vision_range: z.number().int().min(0).max(50).default(3),
  see_through: z.boolean().default(false),
  max_recall_actions: z.number().int().min(1).max(100_000).default(50),
  recall_interval: z.number().int().min(0).max(100_000).default(10),
  success_rule: z.enum(SUCCESS_RULES).default('seen'),
}).strict();

export type ExperimentConfig = z.output<typeof experimentConfigSchema>;
export type ExperimentConfigInput = z.input<typeof experimentConfigSchema>;

export const DEFAULT_CONFIG: ExperimentConfig = experimentConfigSchema.parse({});
