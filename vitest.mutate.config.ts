// The suites Stryker runs against each mutant of core/engine, core/maze
// and core/store: the ones that check those modules' rules in-process.
// Left out: the CLI, CDK, browser and end-to-end suites (they spawn processes
// or synthesize CDK) and the provider, fault, fuzz, stuck-policy and
// continue-as-new suites, which run whole (some 3,000-action) experiments
// through the state machine: each adds seconds to every mutant it reaches
// (a full run took hours with them), for rules the suites here state directly.
// agent-monitor.test.ts, maze-generators.test.ts and database.test.ts are
// left out for the same reason (3,000-action runs, 20 seeds
// up to 101x101, whole experiments, a migrated schema per run): the *-rules
// suites state those rules on small inputs. The store is reached through
// turn-engine.test.ts and finalizer.test.ts.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

// Not mergeConfig: it would append this list to the base's test/**/*.test.ts.
export default defineConfig({
  test: {
    ...base.test,
    // as before the suite shared its workers' processes (vitest.config.ts): Stryker's runs stay as they were measured
    isolate: true,
    include: [
      'test/experiment-rules.test.ts',
      'test/finalizer.test.ts',
      'test/frontier-rules.test.ts',
      'test/game-rules.test.ts',
      'test/maze-rules.test.ts',
      'test/monitor-rules.test.ts',
      'test/turn-engine.test.ts',
      'test/turn-rules.test.ts',
      'test/workflow-rules.test.ts',
      'test/workflows.test.ts',
    ],
  },
});
