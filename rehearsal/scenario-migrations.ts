// The migrations custom resource on a redeploy after the cluster sat paused for days: "If the instance is paused for
// longer than 24 hours, the resume time might be longer" (Aurora User Guide, aurora-serverless-v2-auto-pause.html).
// The deploy must wait it out between the Provider framework's polls, not fail one function's retry budget.
import { migrate } from './world.ts';
import type { Scenario } from './run-experiment.ts';
import { DATABASE_RETRY_BUDGET_MS } from '../core/config/budgets.ts';

/** How long the paused cluster answers DatabaseResumingException here, on this machine's clock. */
const RESUME_MS = 3_000;

/**
 * The rehearsal's waits between polls, as a share of the template's queryInterval: its count is the template's, its
 * length shortened as the scenarios shorten Retry waits. 1/25 of a 10 s interval is 0.4 s.
 */
const WAIT_SCALE = 1 / 25;

export const MIGRATION_SCENARIOS: Record<string, Scenario> = {
  async 'slow-resume-migration'(world) {
    await world.dataApi.pause(RESUME_MS);
    const { polls, intervalSeconds, applied } = await migrate(world, { requestType: 'Update', waitScale: WAIT_SCALE });
    if (world.dataApi.isPaused) throw new Error('the database never resumed');
    // On AWS's clock the polls before the last one waited (polls - 1) x the interval: longer than the whole retry
    // budget one migration function had before it was polled (an onEvent that retried for DATABASE_RETRY_BUDGET_MS).
    const awsWaitSeconds = (polls - 1) * intervalSeconds;
    if (awsWaitSeconds * 1000 <= DATABASE_RETRY_BUDGET_MS)
      throw new Error(
        `the resume lasted ${polls} polls (${awsWaitSeconds} s on AWS's clock), not past the old ` +
          `${DATABASE_RETRY_BUDGET_MS / 1000} s budget: the scenario proves nothing`,
      );
    const { rows } = await world.db.pool.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version');
    const recorded = rows.map((r) => r.name);
    if (applied.join() !== recorded.join() || recorded.length === 0)
      throw new Error(
        `the custom resource answered ${applied.join() || 'nothing'}; the database has ${recorded.join()}`,
      );
    return (
      `a paused cluster answered DatabaseResumingException for ${polls - 1} polls ${intervalSeconds} s apart ` +
      `(${awsWaitSeconds} s on AWS's clock, over the old ${DATABASE_RETRY_BUDGET_MS / 1000} s budget); ` +
      `the redeploy's migrations completed at poll ${polls}, all ${recorded.length} recorded`
    );
  },
};
