// The suites Stryker runs against each mutant of lambdas/engine, lambdas/maze
// and lambdas/store: the ones that drive those modules in-process. The CLI,
// CDK, browser and end-to-end suites spawn processes or synthesize CDK: slow,
// and they add nothing these do not already check.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

// Not mergeConfig: it would append this list to the base's test/**/*.test.ts.
export default defineConfig({
  test: {
    ...base.test,
    include: [
      'test/agent-monitor.test.ts',
      'test/continue-as-new.test.ts',
      'test/database.test.ts',
      'test/faults.test.ts',
      'test/finalizer.test.ts',
      'test/fuzz.test.ts',
      'test/game-rules.test.ts',
      'test/llm-agents.test.ts',
      'test/maze-generators.test.ts',
      'test/maze-rules.test.ts',
      'test/stuck-policies.test.ts',
      'test/turn-engine.test.ts',
      'test/turn-rules.test.ts',
      'test/workflows.test.ts',
    ],
  },
});
