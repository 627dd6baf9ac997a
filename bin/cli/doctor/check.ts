// One check of `ariadne doctor` and how the checks are printed: shared by the deployed-stack checks, the checks
// before a deploy, the Bedrock and permission checks and the quota lines, which import it and nothing of each other's.

/** One line of the doctor's report. */
export interface Check {
  check: string;
  ok: boolean;
  detail: string;
  /** What to do about a failure (or about a check that could not be made). */
  fix?: string;
  /** Not made (not asked for, or not possible with the caller's identity); never a failure. */
  skipped?: boolean;
  /** Passed, but something to act on (a Legacy model); never a failure. */
  warning?: boolean;
}

/** The report, a line per check (and its fix under it). */
export function doctorLines(checks: Check[]): string[] {
  return checks.map((c) => {
    const mark = c.skipped ? 'skip' : c.warning ? 'WARN' : c.ok ? 'ok  ' : 'FAIL';
    const label = c.warning ? 'fix' : c.ok ? 'to check' : 'fix';
    return `${mark}  ${c.check}: ${c.detail}${c.fix ? `\n      ${label}: ${c.fix}` : ''}`;
  });
}
