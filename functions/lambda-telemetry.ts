// Telemetry around a Lambda entry point, for every function: the handlers on the database (deps.ts lambdaEntry),
// CheckProgress (no database) and the migrations custom resource.
import { idsIn, type Telemetry } from '../core/telemetry/telemetry.ts';
import type { LambdaTelemetry } from './powertools-telemetry.ts';

let telemetry: Promise<LambdaTelemetry> | null = null;

/**
 * A Lambda entry point with telemetry: the Powertools implementation (loaded here, once per container, so nothing
 * that runs handlers in-process loads it), the invocation's context on every line, an ERROR line naming any error
 * the handler throws with the ids its input names, and the metrics it stored written when it ends.
 */
export function withLambdaTelemetry<E, C, R>(
  run: (telemetry: Telemetry, event: E, context?: C) => Promise<R>,
): (event: E, context?: C) => Promise<R> {
  return async (event, context) => {
    telemetry ??= import('./powertools-telemetry.ts').then((m) => m.powertoolsTelemetry());
    const t = await telemetry;
    t.begin(context);
    try {
      return await run(t, event, context);
    } catch (err) {
      t.error('invocation failed', err, idsIn(event));
      throw err;
    } finally {
      t.end();
    }
  };
}
