// The local runner validates a definition once per content (a marker in the OS temp dir) and builds the machine
// without validating after that: an invalid definition must still be refused every time, and a valid one run. Its
// Task handlers come from literal imports a bundle carries.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLocalExecution } from '../state-machine/local-runner.ts';
import { HANDLERS_DIR, TASKS } from '../core/machine/tasks.ts';
import { HANDLER_MODULES } from '../state-machine/handler-modules.ts';
import type { Handler } from '../functions/deps.ts';

const deps = { now: () => new Date('2026-11-26T00:00:00Z') };
// the definitions here call no Task: every Task state bound to a handler that is never reached
const notReached: Handler = () => Promise.reject(new Error('not reached'));
const taskHandlers = Object.fromEntries(Object.keys(TASKS).map((state) => [state, notReached]));
const marker = (definition: object) =>
  join(
    tmpdir(),
    `ariadne-asl-valid-${createHash('sha256')
      .update(JSON.stringify([{ checkArn: false }, definition]))
      .digest('hex')
      .slice(0, 32)}`,
  );

describe('the local machine is validated once per definition', () => {
  it('refuses an invalid definition every time, leaving no marker', async () => {
    // a unique definition, so no earlier run's marker can exist: StartAt names no state
    const invalid = { StartAt: `Missing${Date.now()}`, States: { Done: { Type: 'Succeed' } } };
    const mark = marker(invalid);
    for (let i = 0; i < 2; i++)
      await expect(
        runLocalExecution({}, { deps, taskHandlers, definition: structuredClone(invalid) }),
      ).rejects.toThrow();
    expect(existsSync(mark)).toBe(false);
  });

  it('runs a valid definition, marks it, and runs it again from the mark', async () => {
    const valid = { StartAt: 'Echo', States: { Echo: { Type: 'Pass', Result: { run: Date.now() }, End: true } } };
    const mark = marker(valid); // named before the run: the local engine adds to the definition it is given
    rmSync(mark, { force: true });
    const first = await runLocalExecution({}, { deps, taskHandlers, definition: structuredClone(valid) });
    expect(existsSync(mark)).toBe(true);
    const again = await runLocalExecution({}, { deps, taskHandlers, definition: structuredClone(valid) });
    expect(again.output).toEqual(first.output);
    expect(first.output).toEqual(valid.States.Echo.Result);
    rmSync(mark, { force: true });
  });
});

describe('the local runner loads each Task handler from a literal import (state-machine/handler-modules.ts)', () => {
  it.each(Object.entries(TASKS))('%s: its file has a loader, which exports its factory', async (_state, binding) => {
    const load = HANDLER_MODULES[binding.file];
    expect(load, `${binding.file} has no loader`).toBeTypeOf('function');
    expect((await load())[binding.factoryExport]).toBeTypeOf('function');
  });

  it('the loaders are the files in functions that TASKS names, and no other', () => {
    expect(Object.keys(HANDLER_MODULES).sort()).toEqual([...new Set(Object.values(TASKS).map((b) => b.file))].sort());
    for (const file of Object.keys(HANDLER_MODULES)) expect(existsSync(new URL(file, HANDLERS_DIR))).toBe(true);
  });
});

describe("the local machine's copy of each state's input (patches/aws-local-stepfunctions+3.0.0.patch)", () => {
  it('the install applied the patch', () => {
    const engine = readFileSync(
      new URL('../node_modules/aws-local-stepfunctions/build/main.node.esm.js', import.meta.url),
    );
    expect(engine.toString()).toContain("Ariadne's patch (patches/)");
  });

  it('passes every value of a JSON input through a chain of states as it was, an own "__proto__" key too', async () => {
    const input: unknown = JSON.parse(
      '{"__proto__": {"polluted": true}, "a": [1, {"b": null, "c": [[], {}]}], "s": "x", "t": true, "n": 2.5}',
    );
    const definition = {
      StartAt: 'One',
      States: {
        One: { Type: 'Pass', Next: 'Two' },
        Two: { Type: 'Pass', InputPath: '$', Next: 'Three' },
        Three: { Type: 'Pass', ResultPath: '$.added', Result: { k: 1 }, End: true },
      },
    };
    const { output } = await runLocalExecution(input, { deps, taskHandlers, definition });
    expect(Object.hasOwn(output as object, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(JSON.stringify(output)).toBe(JSON.stringify({ ...(input as object), added: { k: 1 } }));
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
