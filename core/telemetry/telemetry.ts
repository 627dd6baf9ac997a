// What the functions tell their operator, as plain data: one line per turn, one per step of an experiment's or a
// sweep's life, one per error, and the metrics a turn and a failed experiment add. The core and the handlers call
// this port; Lambda implements it with Powertools (functions/powertools-telemetry.ts), the CLI with JSON lines
// in a file (json-lines.ts), so both write the same fields and neither the engine nor the store knows which.

/** One committed turn: what the turn line carries and what the per-turn metrics are made of. */
export interface TurnRecord {
  experimentId: string;
  turn: number;
  /** The Task state that ran it (InvokeBedrockAgent...). */
  state: string;
  /** The function family: baseline, ollama, openai, bedrock. */
  provider: string;
  agent: string;
  model: string | null;
  durationMs: number;
  actions: number;
  llmCalls: number;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadInputTokens: number | null;
  cacheWriteInputTokens: number | null;
  costUsd: number | null;
  /** Model calls the provider throttled (429) and the turn retried. */
  throttles: number;
  /** What the state machine waited for the provider before this try of the turn. */
  outageWaits: number;
  outageWaitSeconds: number;
  stopReason: string | null;
  goalFound: boolean;
  /** A retried invocation that found the turn committed: it did nothing, and adds to no metric. */
  replayed: boolean;
}

/** What the engine knows of a committed turn; the handler that ran it adds where it ran and what it waited. */
export type TurnUsage = Omit<TurnRecord, 'state' | 'provider' | 'outageWaits' | 'outageWaitSeconds' | 'replayed'>;

/** A retry of a model call the provider throttled: HTTP 429, or Bedrock's ThrottlingException by name. */
export function isThrottle(retry: Readonly<Record<string, unknown>>): boolean {
  return retry.status === 429 || (typeof retry.error === 'string' && /throttl/i.test(retry.error));
}

/** Fields of an event line: ids and small facts, never prompts or model text. */
export type EventFields = Record<string, string | number | boolean | null | undefined>;

export interface Telemetry {
  /** One INFO line for the turn, and its metrics. */
  turn(record: TurnRecord): void;
  /** One INFO line: an experiment started or finalized, a sweep registered, migrations applied. */
  event(message: string, fields: EventFields): void;
  /** One ERROR line naming the error (its name and message), with the ids it concerns. */
  error(message: string, err: unknown, fields?: EventFields): void;
  /** An experiment that ended failed (counted once, when its row changed): a line and the ExperimentsFailed metric. */
  experimentFailed(fields: EventFields & { experimentId: string }): void;
}

/** The turn line's own fields, in one order for every implementation. */
export function turnFields(r: TurnRecord): EventFields {
  return {
    experimentId: r.experimentId,
    turn: r.turn,
    state: r.state,
    provider: r.provider,
    agent: r.agent,
    model: r.model,
    durationMs: r.durationMs,
    actions: r.actions,
    llmCalls: r.llmCalls,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    cacheReadInputTokens: r.cacheReadInputTokens,
    cacheWriteInputTokens: r.cacheWriteInputTokens,
    costUsd: r.costUsd,
    throttles: r.throttles,
    outageWaits: r.outageWaits,
    outageWaitSeconds: r.outageWaitSeconds,
    stopReason: r.stopReason,
    goalFound: r.goalFound,
    replayed: r.replayed,
  };
}

/** An error's name and message, as an error line carries them. */
export function errorFields(err: unknown): { errorName: string; errorMessage: string } {
  return err instanceof Error
    ? { errorName: err.name, errorMessage: err.message.slice(0, 1000) }
    : { errorName: typeof err, errorMessage: String(err).slice(0, 1000) };
}

/** The ids an invocation's input names, for its error line (the shapes of core/machine/contracts.ts). */
export function idsIn(event: unknown): EventFields {
  const o = (event ?? {}) as Record<string, unknown>;
  const pick = (v: unknown) => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {});
  const state = pick(o.state);
  const request = pick(o.request);
  const resume = pick(request.resume ?? state.resume);
  const sweep = pick(o.sweep);
  const experimentId = [o.experimentId, state.experimentId, request.experimentId, resume.experimentId].find(
    (v): v is string => typeof v === 'string',
  );
  const turn = [o.turnNumber, state.turnNumber].find((v): v is number => typeof v === 'number');
  const sweepId = typeof sweep.id === 'string' ? sweep.id : undefined;
  return {
    ...(experimentId ? { experimentId } : {}),
    ...(turn !== undefined ? { turn } : {}),
    ...(sweepId ? { sweepId } : {}),
  };
}
