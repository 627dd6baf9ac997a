// The maze model a power plan needs (reports/power-plan.ts), estimated from a pilot sweep: the logit-normal
// random-intercept model (lme4's glmer(cbind(s, n - s) ~ 1 + (1 | maze), binomial)) fitted by maximum likelihood,
// the likelihood integrated over the maze effect by fine midpoint quadrature, maximized by Nelder-Mead. With one
// run a maze and one agent the spread is not identifiable: mazeSd comes back null, the base fitted under a default.
import { InvalidInputError } from '../core/errors.ts';
import { normalNodes } from './calibration.ts';
import { nelderMead } from './nelder-mead.ts';
import { lnGamma } from './student-t.ts';

/**
 * The spread assumed when the pilot cannot tell it: the middle of the range calibrated (1 to 2). Not a bound: at a
 * fixed success rate a plan with one run a maze needs more mazes at a smaller spread (0.10 at 50%: 407 mazes at
 * mazeSd 0, 296 at 1.5), so a plan on an assumed spread is best read beside the one at mazeSd 0.
 */
export const DEFAULT_MAZE_SD = 1.5;
/** The largest spread reported: a pilot whose every maze is all-or-nothing drives the estimate to infinity. */
export const MAX_FIT_MAZE_SD = 10;
/** Midpoints on +-8 sd: enough for a maze of 100 runs at mazeSd 3 (4 points within the likelihood's own sd). */
const STEPS = 1000;

/** One maze of the pilot, for one agent. */
export interface MazeCounts {
  successes: number;
  runs: number;
}

export interface PilotInput {
  /** Agent b's (the baseline's) counts, one entry a maze. */
  baseline: readonly MazeCounts[];
  /** Agent a's counts on the same mazes, in the same order, if it ran too: its advantage is fitted as well. */
  candidate?: readonly MazeCounts[];
  /** The spread the base is fitted under when the pilot cannot tell it; DEFAULT_MAZE_SD unless given. */
  assumedMazeSd?: number;
}

export interface PilotFit {
  /** b's rate on an average maze, logit scale. */
  base: number;
  /** The maze spread (logit sd), null when no maze had two runs. */
  mazeSd: number | null;
  /** The spread the base (and effect) were fitted under when mazeSd is null; null otherwise. */
  assumedMazeSd: number | null;
  /** a's advantage on the logit scale, when the candidate's counts were given. */
  effect: number | null;
  /** The maximized log likelihood, binomial coefficients included (as glmer's logLik). */
  logLik: number;
  mazes: number;
}

/** One distinct maze outcome and how many mazes had it: the likelihood is evaluated once per pattern. */
interface Pattern {
  count: number;
  sb: number;
  nb: number;
  sa: number;
  na: number;
  logChoose: number;
}

const logChoose = (n: number, k: number) => lnGamma(n + 1) - lnGamma(k + 1) - lnGamma(n - k + 1);
/** log expit(x), without overflow at either end. */
const logExpit = (x: number) => (x >= 0 ? -Math.log1p(Math.exp(-x)) : x - Math.log1p(Math.exp(x)));

function checkCounts(field: string, counts: readonly MazeCounts[]): void {
  if (counts.length < 2) {
    const fix = 'give 2 mazes or more: how mazes vary cannot be told from one';
    throw new InvalidInputError(field, counts.length, `${field} has ${counts.length} mazes: ${fix}`);
  }
  counts.forEach(({ successes: s, runs: n }, i) => {
    if (!(Number.isInteger(n) && n >= 1 && Number.isInteger(s) && s >= 0 && s <= n)) {
      throw new InvalidInputError(
        `${field}[${i}]`,
        { successes: s, runs: n },
        `${field}[${i}] is ${JSON.stringify({ successes: s, runs: n })}: give whole runs >= 1, successes in 0..runs`,
      );
    }
  });
  const [s, n] = [counts.reduce((t, c) => t + c.successes, 0), counts.reduce((t, c) => t + c.runs, 0)];
  if (s === 0 || s === n) {
    throw new InvalidInputError(
      field,
      `${s} of ${n}`,
      `${field} succeeded in ${s} of ${n} runs: its rate on the logit scale is infinite; plan with a stated ` +
        'rate (ariadne plan --base-rate)',
    );
  }
}

function patterns(input: PilotInput): Pattern[] {
  const byKey = new Map<string, Pattern>();
  input.baseline.forEach((b, i) => {
    const a = input.candidate?.[i] ?? { successes: 0, runs: 0 };
    const key = `${b.successes}/${b.runs}/${a.successes}/${a.runs}`;
    const known = byKey.get(key);
    if (known) known.count++;
    else {
      const choose = logChoose(b.runs, b.successes) + logChoose(a.runs, a.successes);
      byKey.set(key, { count: 1, sb: b.successes, nb: b.runs, sa: a.successes, na: a.runs, logChoose: choose });
    }
  });
  return [...byKey.values()];
}

/**
 * The log likelihood at (base, effect, sd): per pattern, log E_u[binomial(b) binomial(a)], u ~ N(0, sd^2), on
 * calibration.ts's quadrature nodes; each node's log rates are taken once and shared by the patterns.
 */
function logLikelihood(ps: readonly Pattern[], base: number, effect: number, sd: number): number {
  const { z, weight } = normalNodes(STEPS);
  const logs = Array.from({ length: 4 }, () => new Float64Array(STEPS));
  for (let i = 0; i < STEPS; i++) {
    const [xb, xa] = [base + sd * z[i], base + effect + sd * z[i]];
    [logs[0][i], logs[1][i], logs[2][i], logs[3][i]] = [logExpit(xb), logExpit(-xb), logExpit(xa), logExpit(-xa)];
  }
  let total = 0;
  for (const p of ps) {
    let sum = 0;
    for (let i = 0; i < STEPS; i++) {
      const b = p.sb * logs[0][i] + (p.nb - p.sb) * logs[1][i];
      const a = p.na === 0 ? 0 : p.sa * logs[2][i] + (p.na - p.sa) * logs[3][i];
      sum += weight[i] * Math.exp(p.logChoose + a + b);
    }
    total += p.count * Math.log(sum);
  }
  return total;
}

export const logit = (p: number) => Math.log(p / (1 - p));
const pooled = (counts: readonly MazeCounts[]) =>
  counts.reduce((t, c) => t + c.successes, 0) / counts.reduce((t, c) => t + c.runs, 0);

/**
 * The maximum-likelihood maze model of a pilot. The likelihood is even in the spread (u and -u alike), so the
 * search runs over a signed spread and reports its size, capped at MAX_FIT_MAZE_SD.
 */
export function fitPilot(input: PilotInput): PilotFit {
  const { baseline, candidate } = input;
  checkCounts('baseline', baseline);
  if (candidate) {
    checkCounts('candidate', candidate);
    if (candidate.length !== baseline.length) {
      const fix = `give the candidate's counts on the same ${baseline.length} mazes as the baseline's, in order`;
      throw new InvalidInputError('candidate', candidate.length, `candidate has ${candidate.length} mazes: ${fix}`);
    }
  }
  const assumed = input.assumedMazeSd ?? DEFAULT_MAZE_SD;
  if (!(assumed >= 0 && assumed <= MAX_FIT_MAZE_SD)) {
    const fix = `give a spread between 0 and ${MAX_FIT_MAZE_SD}`;
    throw new InvalidInputError('assumedMazeSd', assumed, `assumedMazeSd is ${assumed}: ${fix}`);
  }
  const ps = patterns(input);
  const identified = baseline.some((b, i) => b.runs + (candidate?.[i].runs ?? 0) >= 2);
  const start = [logit(pooled(baseline)), candidate ? logit(pooled(candidate)) - logit(pooled(baseline)) : 0];
  // x = [base, effect?, signed sd?]: the parameters the pilot can tell
  const unpack = (x: number[]) => ({
    base: x[0],
    effect: candidate ? x[1] : 0,
    sd: identified ? Math.min(Math.abs(x[candidate ? 2 : 1]), MAX_FIT_MAZE_SD) : assumed,
  });
  const x0 = [start[0], ...(candidate ? [start[1]] : []), ...(identified ? [1] : [])];
  const best = nelderMead((x) => {
    const m = unpack(x);
    return -logLikelihood(ps, m.base, m.effect, m.sd);
  }, x0);
  const m = unpack(best.x);
  return {
    base: m.base,
    mazeSd: identified ? m.sd : null,
    assumedMazeSd: identified ? null : assumed,
    effect: candidate ? m.effect : null,
    logLik: -best.value,
    mazes: baseline.length,
  };
}
