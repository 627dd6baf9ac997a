// aws-local-stepfunctions evaluates each path by calling jsonpath-plus without `new`, and jsonpath-plus returns a
// scalar by throwing and catching its NewError; capturing the stack trace cost about 15 µs, some 60% of the local
// machine's own CPU per turn (bench/engine.ts). NewError's parent is swapped for a constructor that captures none
// (jsonpath-plus reads only avoidNew and value). Load this before running a definition: same answers, cheaper.
import { JSONPath } from 'jsonpath-plus';

/** Builds what Error would, but without capturing a stack: `this` already has NewError's prototype (new.target). */
function StacklessError(this: { message: string }, message: string) {
  this.message = message;
}

function newErrorClass(): (new (...args: never[]) => unknown) | null {
  try {
    // with `new`, jsonpath-plus rethrows its NewError for a scalar instead of catching it
    // (its types declare no construct signature, though the function is one)
    new (JSONPath as unknown as new (options: object) => unknown)({ path: '$.a', json: { a: 1 }, wrap: false });
  } catch (err) {
    const ctor = (err as { avoidNew?: unknown } | null)?.constructor;
    if ((err as { avoidNew?: unknown }).avoidNew === true && typeof ctor === 'function') return ctor as never;
  }
  return null; // another jsonpath-plus that answers scalars otherwise: nothing to do
}

const NewError = newErrorClass();
if (NewError && Object.getPrototypeOf(NewError) === Error) Object.setPrototypeOf(NewError, StacklessError);
