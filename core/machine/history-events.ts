// The execution history AWS would write, counted from the local engine's events, so the rehearsal can check every
// execution against aws-facts: sfn.max-history-events (a long experiment continues as new before it). The local engine
// writes one event where AWS writes several (a Lambda Task is five: TaskStateEntered, LambdaFunctionScheduled,
// LambdaFunctionStarted, LambdaFunctionSucceeded, TaskStateExited; HistoryEvent in the Step Functions API reference).
import { fact } from '../../aws-facts/facts.ts';

/** A Standard workflow's history limit (Step Functions service quotas, "Execution history"). */
export const MAX_HISTORY_EVENTS = fact('sfn.max-history-events').value;

/** AWS history events for one local-engine event of a state of this type. */
export function historyEventsOf(event: { type: string }, stateType: string | undefined): number {
  const task = stateType === 'Task';
  switch (event.type) {
    case 'StateEntered':
      return task ? 3 : 1; // entered; a Task also scheduled and started
    case 'StateExited':
      return task ? 2 : 1; // a Task also succeeded
    case 'StateRetried':
      return 2; // scheduled and started again (the failure is StateFailed)
    case 'StateCaught':
      return 0; // the catch moves on: the next state's events count
    default:
      return 1; // ExecutionStarted/Succeeded/Failed/Aborted/Timeout, StateFailed, Map and Parallel events
  }
}
