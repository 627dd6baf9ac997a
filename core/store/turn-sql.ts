// The single statement that commits a turn: it advances the experiment only
// if it is still at turn n-1, and inserts the turn and its actions only if
// that update happened. One statement is one transaction and one round trip.
import type { TurnWrite } from '../engine/store.ts';
import type { CellEntered, SeenTile } from '../engine/game.ts';
import { clipJson, jsonbBytes, LIMITS, truncateText } from './stored-limits.ts';
import type { SqlValue } from './sql.ts';
import { jsonWithinLimit, refuseOversized, RowClipper } from './clip-row.ts';
import { spentTokens } from '../engine/token-cost.ts';
import type { RequestManifest } from '../providers/llm/model-request.ts';
import { bodyParts, storedManifest } from './model-bodies-sql.ts';
import { probeSpend, type BeliefProbeWrite } from '../engine/belief-probe.ts';

const COMMIT_TURN_HEAD = `
WITH advanced AS (
  UPDATE experiments SET
    turns_completed = $2, actions_taken = $3, tiles_seen = $4, position_x = $5, position_y = $6,
    goal_found = $7, agent_memory = coalesce($22::jsonb, agent_memory), updated_at = now(),
    provenance = coalesce(provenance, $25::jsonb), token_calibration = coalesce(token_calibration, $26::float8),
    price_known = coalesce($27::boolean, price_known),
    spent_tokens = spent_tokens + $30, spent_cost_usd = spent_cost_usd + $31,
    simulated = simulated OR $32::boolean, prompt_truncated_calls = prompt_truncated_calls + $33
  WHERE id = $1 AND turns_completed = $2 - 1 AND status = 'running'
  RETURNING id
), turn AS (
  INSERT INTO turns (experiment_id, turn_number, started_at, ended_at, stop_reason, actions_executed, calls_refused,
    llm_calls, input_tokens, output_tokens, latency_ms, goal_found, actions_taken_after, tiles_seen_after,
    position_x_after, position_y_after, cost_usd, agent_state, agent_phase, halted_by, cache_read_input_tokens,
    cache_write_input_tokens, provider_waits, provider_wait_seconds)
  SELECT id, $2, $8, $9, $10, $11, $12, $13, $14, $15, $16, $7, $3, $4, $5, $6, $18, $19::jsonb, $20, $21::jsonb, $23,
    $24, $28, $29
  FROM advanced
  RETURNING experiment_id, llm_calls, input_tokens, output_tokens, cost_usd, agent_phase
), acts AS (
  INSERT INTO actions (experiment_id, turn_number, call_index, step_number, tool, arguments, reasoning, assistant_text,
    parsed_from_text, executed, success, outcome, message, from_x, from_y, to_x, to_y, vision, new_tiles_seen,
    recalled, goal_found, clipped)
  SELECT turn.experiment_id, $2, a.c, a.s, a.t, a.a, a.r, a.x, a.p, a.e, a.ok, a.o, a.m, a.fx, a.fy, a.tx, a.ty, a.v,
    a.n, a.rc, a.g, a.k
  FROM turn, jsonb_to_recordset($17::jsonb) AS a(c int, s int, t text, a jsonb, r text, x text, p boolean, e boolean,
    ok boolean, o text, m text, fx int, fy int, tx int, ty int, v jsonb, n int, rc jsonb, g boolean, k jsonb)
  RETURNING tool, executed, outcome, to_x, to_y, parsed_from_text
)`;

// Optional parts, each with its own parameters ({n} = the next free number):
// turns of baseline agents make no model calls, and most turns change no
// phase and raise no signal; their statements skip those parts.
const LLM_CALLS_CTE = `, calls AS (
  INSERT INTO llm_calls (experiment_id, turn_number, call_index, first_action_index, input_tokens, output_tokens,
    latency_ms, stop_reason, assistant_text, tool_calls, retries, workflow_steps, cache_read_input_tokens,
    cache_write_input_tokens, prompt_estimate, context_window, context_trimmed, total_duration_ns, load_duration_ns,
    prompt_eval_count, prompt_eval_duration_ns, eval_count, eval_duration_ns, truncated, reasoning_text,
    reasoning_tokens, estimated_input_tokens, estimate_off, clipped, reported_reasoning_tokens, image_sha256,
    prompt_truncated, simulator)
  SELECT turn.experiment_id, $2, l.c, l.f, l.i, l.o, l.l, l.s, l.x, l.t, l.r, l.w, l.kr, l.kw, l.pe, l.cw, l.ct, l.td,
    l.ld, l.pc, l.pd, l.ec, l.ed, l.tr, l.rt, l.rk, l.ei, l.eo, l.k, l.rr,
    (SELECT array_agg(h) FROM jsonb_array_elements_text(l.im) AS h), l.pt, l.sim
  FROM turn, jsonb_to_recordset(\${0}::jsonb)
    AS l(c int, f int, i int, o int, l int, s text, x text, t jsonb, r jsonb, w jsonb, kr int, kw int, pe int, cw int,
      ct int, td bigint, ld bigint, pc int, pd bigint, ec int, ed bigint, tr boolean, rt text, rk int, ei int,
      eo boolean, k jsonb, rr int, im jsonb, pt boolean, sim text)
  RETURNING 1
)`;

// The flight recorder's rows (migration 031): the parts and replies not stored yet, the requests, and each call's
// exchanges in order. Parts are content-addressed, so a part another run stored already is left as it is; each is
// stored in pieces a Data API row can carry (model-bodies-sql.ts).
const EXCHANGES_CTE = `, bodies AS (
  INSERT INTO model_bodies (sha256, part, body)
  SELECT b.h, b.p, b.b FROM turn, jsonb_to_recordset(\${0}::jsonb) AS b(h text, p int, b text)
  ON CONFLICT (sha256, part) DO NOTHING
  RETURNING 1
), requests AS (
  INSERT INTO model_requests (request_key, manifest)
  SELECT q.k, q.m FROM turn, jsonb_to_recordset(\${1}::jsonb) AS q(k text, m jsonb)
  ON CONFLICT (request_key) DO NOTHING
  RETURNING 1
), exchanges AS (
  INSERT INTO model_exchanges (experiment_id, turn_number, call_index, seq, request_key, reply_sha256, answered_by)
  SELECT turn.experiment_id, $2, x.c, x.q, x.k, x.r, x.a
  FROM turn, jsonb_to_recordset(\${2}::jsonb) AS x(c int, q int, k text, r text, a text)
  RETURNING 1
)`;

// The belief probe after the turn (migration 033), with the turn: a turn not written writes no probe.
const PROBE_CTE = `, probe AS (
  INSERT INTO belief_probes (experiment_id, turn_number, step_number, status, prompt, answer, problem, shown_cells,
    shown_walls, shown_open, correct_cells, correct_walls, correct_open, claimed_unshown, claimed_unshown_correct,
    believed_x, believed_y, position_x, position_y, position_error, input_tokens, output_tokens,
    cache_read_input_tokens, cache_write_input_tokens, reported_reasoning_tokens, cost_usd, latency_ms, stop_reason,
    answered_by, simulator)
  SELECT turn.experiment_id, $2, p.step, p.status, p.q, p.a, p.pr, p.sc, p.sw, p.so, p.cc, p.cw, p.co, p.cu, p.cuc,
    p.wx, p.wy, p.px, p.py, p.pe, p.i, p.o, p.kr, p.kw, p.rr, p.cost, p.l, p.s, p.ab, p.sim
  FROM turn, jsonb_to_record(\${0}::jsonb) AS p(step int, status text, q text, a text, pr text, sc int, sw int, so int,
    cc int, cw int, co int, cu int, cuc int, wx int, wy int, px int, py int, pe int, i int, o int, kr int, kw int,
    rr int, cost numeric, l int, s text, ab text, sim text)
  RETURNING input_tokens, output_tokens, cost_usd, answered_by
)`;

const AGENT_STATE_CTE = `, transitions AS (
  INSERT INTO agent_state_transitions (experiment_id, turn_number, seq, machine, step_number, from_phase, to_phase,
    cause, refused, recorded_at)
  SELECT turn.experiment_id, $2, t.q, t.k, t.s, t.f, t.t, t.c, t.r, t.at
  FROM turn, jsonb_to_recordset(\${0}::jsonb)
    AS t(q int, k text, s int, f text, t text, c text, r boolean, at timestamptz)
  RETURNING 1
), signals AS (
  INSERT INTO stuck_signals (experiment_id, turn_number, seq, step_number, detector, detail, policy, recorded_at)
  SELECT turn.experiment_id, $2, g.q, g.s, g.d, g.x, g.p, g.at
  FROM turn, jsonb_to_recordset(\${1}::jsonb) AS g(q int, s int, d text, x text, p text, at timestamptz)
  RETURNING seq, step_number, detector
)`;

// The experiment's kept totals (migration 017) advanced by this turn's rows alone, in the turn's statement: a
// turn that is not written (already committed, or the run moved on) adds nothing, and one rolled back adds nothing.
// Sums of tokens and cost stay null while every turn's is null, as sum() over the turns is. The loop cells and the
// most entries of one cell come from the cells the turn entered ({0}, {1}: loopCellsOf below), whose entries the
// game state counts; they were kept in experiment_cell_visits, whose upserts were most of this part's cost (migration
// 021). {signals}: the turn's stuck signals (the signals CTE when the statement has one). {probe}: its belief probe
// (the probe CTE when it has one), whose call counts with the turn's when a model's server answered it.
const TOTALS_CTE = `, totals AS (
  INSERT INTO experiment_totals AS k (experiment_id, tool_calls, text_tool_calls, invalid_actions, failed_moves,
    recall_calls, refused_calls, loop_cells, max_cell_visits, llm_calls, input_tokens, output_tokens, cost_usd,
    cost_known, last_phase, stuck_signals, first_stuck_detector, first_stuck_step, probe_calls)
  SELECT turn.experiment_id, a.calls, a.from_text, a.invalid, a.failed, a.recalls, a.refused, v.loops, v.most,
    turn.llm_calls + p.calls, coalesce(turn.input_tokens + p.input_tokens, turn.input_tokens, p.input_tokens),
    coalesce(turn.output_tokens + p.output_tokens, turn.output_tokens, p.output_tokens),
    coalesce(turn.cost_usd + p.cost_usd, turn.cost_usd, p.cost_usd),
    cost_known(turn.cost_usd, turn.llm_calls) AND cost_known(p.cost_usd, p.calls),
    turn.agent_phase, g.signals, g.first_detector, g.first_step, p.calls
  FROM turn,
    (SELECT count(*) AS calls, count(*) FILTER (WHERE parsed_from_text) AS from_text,
       count(*) FILTER (WHERE outcome IN ('unknown_tool', 'invalid_arguments')) AS invalid,
       count(*) FILTER (WHERE outcome IN ('blocked_by_wall', 'blocked_by_edge')) AS failed,
       count(*) FILTER (WHERE tool = 'recall_all' AND executed) AS recalls,
       count(*) FILTER (WHERE NOT executed) AS refused
     FROM acts) a,
    (SELECT \${0}::int AS loops, \${1}::int AS most) v,
    (SELECT count(*) AS signals, (array_agg(detector ORDER BY seq))[1] AS first_detector,
       min(step_number) AS first_step
     FROM {signals}) g,
    {probe} p
  ON CONFLICT (experiment_id) DO UPDATE SET
    tool_calls = k.tool_calls + EXCLUDED.tool_calls,
    text_tool_calls = k.text_tool_calls + EXCLUDED.text_tool_calls,
    invalid_actions = k.invalid_actions + EXCLUDED.invalid_actions,
    failed_moves = k.failed_moves + EXCLUDED.failed_moves,
    recall_calls = k.recall_calls + EXCLUDED.recall_calls,
    refused_calls = k.refused_calls + EXCLUDED.refused_calls,
    loop_cells = k.loop_cells + EXCLUDED.loop_cells,
    max_cell_visits = greatest(k.max_cell_visits, EXCLUDED.max_cell_visits),
    llm_calls = k.llm_calls + EXCLUDED.llm_calls,
    input_tokens = coalesce(k.input_tokens + EXCLUDED.input_tokens, k.input_tokens, EXCLUDED.input_tokens),
    output_tokens = coalesce(k.output_tokens + EXCLUDED.output_tokens, k.output_tokens, EXCLUDED.output_tokens),
    cost_usd = coalesce(k.cost_usd + EXCLUDED.cost_usd, k.cost_usd, EXCLUDED.cost_usd),
    cost_known = k.cost_known AND EXCLUDED.cost_known,
    last_phase = EXCLUDED.last_phase,
    stuck_signals = k.stuck_signals + EXCLUDED.stuck_signals,
    first_stuck_detector = coalesce(k.first_stuck_detector, EXCLUDED.first_stuck_detector),
    first_stuck_step = least(k.first_stuck_step, EXCLUDED.first_stuck_step),
    probe_calls = k.probe_calls + EXCLUDED.probe_calls
  RETURNING 1
)`;
/** The turn's stuck signals for TOTALS_CTE when the statement inserts none: no rows of the same columns. */
const NO_SIGNALS = '(SELECT NULL::int AS seq, NULL::int AS step_number, NULL::text AS detector WHERE false) none';
/** The turn's belief probe's spend for TOTALS_CTE: the probe CTE's call when a model's server answered it. */
const PROBE_SPEND = `(SELECT count(*) AS calls, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
  sum(cost_usd) AS cost_usd FROM probe WHERE answered_by = 'model')`;
/** The same when the turn has no probe: nothing, without a query. */
const NO_PROBE =
  '(SELECT 0::bigint AS calls, NULL::bigint AS input_tokens, NULL::bigint AS output_tokens, NULL::numeric AS cost_usd)';

const COMMIT_TURN_TAIL = `
SELECT (SELECT count(*) FROM turn)::int AS written, (SELECT count(*) FROM acts)::int AS actions`;

/** The statement for a turn (named, so each connection prepares each of its four forms once) and its parameters. */
export function commitTurnQuery(t: TurnWrite): { name: string; text: string; values: SqlValue[] } {
  const values = turnParams(t);
  let text = COMMIT_TURN_HEAD;
  let name = 'ariadne-commit-turn';
  const part = (suffix: string, cte: string, params: SqlValue[]) => {
    name += suffix;
    text += cte.replace(/\$\{(\d)\}/g, (_, k: string) => `$${values.length + 1 + Number(k)}`);
    values.push(...params);
  };
  if (t.llmCalls.length > 0) part('-llm', LLM_CALLS_CTE, [llmCallsParam(t)]);
  if (t.llmCalls.some((l) => l.exchanges && l.exchanges.length > 0))
    part('-recorded', EXCHANGES_CTE, exchangeParams(t));
  if (t.transitions.length > 0 || t.signals.length > 0) part('-state', AGENT_STATE_CTE, agentStateParams(t));
  if (t.probe) part('-probe', PROBE_CTE, [probeParam(t.probe)]);
  const signals = t.transitions.length > 0 || t.signals.length > 0 ? 'signals' : NO_SIGNALS;
  const cells = loopCellsOf(t.entered);
  // the totals' parameters come last: withoutTotals drops them
  const totals = TOTALS_CTE.replace('{signals}', signals).replace('{probe}', t.probe ? PROBE_SPEND : NO_PROBE);
  part('', totals, [cells.loops, cells.most]);
  return { name, text: text + COMMIT_TURN_TAIL, values };
}

/** The turn's model calls as one JSON parameter, in short keys (LLM_CALLS_CTE reads them), clipped to the columns. */
function llmCallsParam(t: TurnWrite): string {
  return JSON.stringify(
    pgSafe(
      t.llmCalls.map((l) => ({
        c: l.callIndex,
        f: l.firstActionIndex,
        i: l.inputTokens,
        o: l.outputTokens,
        l: l.latencyMs,
        s: l.stopReason,
        x: l.text,
        t: l.toolCalls,
        r: l.retries,
        w: l.workflowSteps,
        kr: l.cacheReadInputTokens,
        kw: l.cacheWriteInputTokens,
        rr: l.reportedReasoningTokens ?? null,
        im: l.images ?? null,
        pe: l.context?.estimate ?? null,
        cw: l.context?.window ?? null,
        ct: l.context?.trimmed ?? null,
        td: l.timings?.totalDurationNs ?? null,
        ld: l.timings?.loadDurationNs ?? null,
        pc: l.timings?.promptEvalCount ?? null,
        pd: l.timings?.promptEvalDurationNs ?? null,
        ec: l.timings?.evalCount ?? null,
        ed: l.timings?.evalDurationNs ?? null,
        tr: l.truncated ?? null,
        rt: l.reasoning?.text ?? null,
        rk: l.reasoning?.tokens ?? null,
        ei: l.context?.calibrated ?? null,
        eo: l.estimateOff ?? null,
        pt: l.promptTruncated ?? null,
        sim: l.simulator ?? null,
      })),
    ).map(clipCall),
  );
}

/**
 * The turn's exchanges as the three JSON parameters EXCHANGES_CTE reads: each part and reply once, each request
 * once, and the exchanges by call and order. Bodies are canonical JSON text (JSON escapes NUL and lone surrogates,
 * so any text is storable) and are never clipped: a replay needs every byte.
 */
function exchangeParams(t: TurnWrite): [string, string, string] {
  const bodies = new Map<string, string>();
  const requests = new Map<string, object>();
  const rows: Array<{ c: number; q: number; k: string; r: string; a: string }> = [];
  for (const call of t.llmCalls)
    (call.exchanges ?? []).forEach((x, q) => {
      for (const [h, b] of x.bodies) bodies.set(h, b);
      bodies.set(x.replySha256, x.reply);
      requests.set(x.requestKey, storedManifest(x.manifest as RequestManifest, bodies));
      rows.push({ c: call.callIndex, q, k: x.requestKey, r: x.replySha256, a: x.answeredBy });
    });
  return [
    JSON.stringify([...bodies].flatMap(([h, body]) => bodyParts(body).map((b, p) => ({ h, p, b })))),
    JSON.stringify([...requests].map(([k, m]) => ({ k, m }))),
    JSON.stringify(rows),
  ];
}

/** The belief probe as the JSON parameter PROBE_CTE reads; what the model wrote cut to fit the row. */
function probeParam(p: BeliefProbeWrite): string {
  const cut = new RowClipper();
  const s = p.scores;
  return JSON.stringify({
    step: p.stepNumber,
    status: p.status,
    q: cut.text('belief_probes.prompt', p.question),
    a: cut.text('belief_probes.answer', pgSafe(p.answer)),
    pr: cut.text('belief_probes.problem', pgSafe(p.problem)),
    sc: s?.shownCells ?? null,
    sw: s?.shownWalls ?? null,
    so: s?.shownOpen ?? null,
    cc: s?.correctCells ?? null,
    cw: s?.correctWalls ?? null,
    co: s?.correctOpen ?? null,
    cu: s?.claimedUnshown ?? null,
    cuc: s?.claimedUnshownCorrect ?? null,
    wx: s?.believed?.x ?? null,
    wy: s?.believed?.y ?? null,
    px: p.position.x,
    py: p.position.y,
    pe: s?.positionError ?? null,
    i: p.usage?.inputTokens ?? null,
    o: p.usage?.outputTokens ?? null,
    kr: p.usage?.cacheReadInputTokens ?? null,
    kw: p.usage?.cacheWriteInputTokens ?? null,
    rr: p.usage?.reasoningTokens ?? null,
    cost: p.costUsd,
    l: p.latencyMs,
    s: p.stopReason === null ? null : truncateText(pgSafe(p.stopReason), LIMITS['llm_calls.stop_reason']),
    ab: p.answeredBy,
    sim: p.simulator,
  });
}

/** The turn's phase transitions and stuck signals, as the two JSON parameters AGENT_STATE_CTE reads. */
function agentStateParams(t: TurnWrite): [string, string] {
  return [
    JSON.stringify(
      t.transitions.map((x, q) => ({
        q,
        k: x.machine ?? 'agent',
        s: x.step,
        f: x.from,
        t: x.to,
        c: new RowClipper().text('agent_state_transitions.cause', x.cause),
        r: x.refused,
        at: x.at,
      })),
    ),
    JSON.stringify(
      t.signals.map((x, q) => ({
        q,
        s: x.step,
        d: x.detector,
        x: new RowClipper().text('stuck_signals.detail', x.detail),
        p: t.stuckPolicy,
        at: x.at,
      })),
    ),
  ];
}

/** A cell entered this many times or more is a loop cell (the MazeEval convention: migration 017's view). */
const LOOP_CELL_ENTRIES = 10;

/**
 * What a turn adds to the kept loop cells and most entries: a cell counts once, in the turn its entries reach
 * LOOP_CELL_ENTRIES (its entries before the turn are its entries now less the turn's moves into it), and the most
 * is the greatest of the entered cells' entries (0 when the turn entered none: greatest() keeps the kept one).
 */
function loopCellsOf(entered: readonly CellEntered[]): { loops: number; most: number } {
  let loops = 0;
  let most = 0;
  for (const c of entered) {
    if (c.entries >= LOOP_CELL_ENTRIES && c.entries - c.moves < LOOP_CELL_ENTRIES) loops++;
    most = Math.max(most, c.entries);
  }
  return { loops, most };
}

/**
 * The same statement without its upserts of the kept totals (TOTALS_CTE): bench/engine.ts times both, to price
 * what migration 017 added to every turn. Not for writing runs: their totals would fall behind.
 */
export function withoutTotals(q: { name: string; text: string; values: SqlValue[] }) {
  const values = q.values.slice(0, -2);
  const totals = (signals: string) =>
    TOTALS_CTE.replace('{signals}', signals)
      .replace('{probe}', NO_PROBE)
      .replace(/\$\{(\d)\}/g, (_, k: string) => `$${values.length + 1 + Number(k)}`);
  const text = [NO_SIGNALS, 'signals'].reduce((t, s) => t.replace(totals(s), ''), q.text);
  return { name: `${q.name}-no-totals`, text, values };
}

/**
 * Postgres text and jsonb cannot hold NUL or unpaired UTF-16 surrogates, which
 * a model (or a hostile prompt) can produce: each becomes U+FFFD, so the
 * turn is logged rather than lost. Everything else is kept byte for byte.
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly what must be replaced
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function pgSafe<T>(value: T): T {
  if (typeof value === 'string')
    // eslint-disable-next-line no-control-regex -- a fast check for NUL or a surrogate before the full replace
    return (/[\u0000\ud800-\udfff]/.test(value) ? value.replace(UNSTORABLE, '\ufffd') : value) as T;
  if (Array.isArray(value)) return value.map(pgSafe) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [pgSafe(k), pgSafe(v)])) as T;
  return value;
}

/** A model call's words within their limits (engine/stored-limits.ts), what was cut named in `k` (clipped). */
function clipCall<L extends { s: string | null; x: string | null; t: unknown; r: unknown; w: unknown; rt: unknown }>(
  l: L,
): L & { k: Record<string, number> | null } {
  const cut = new RowClipper();
  return {
    ...l,
    s: cut.text('llm_calls.stop_reason', l.s),
    x: cut.text('llm_calls.assistant_text', l.x),
    t: cut.json('llm_calls.tool_calls', l.t),
    r: cut.json('llm_calls.retries', l.r),
    w: l.w === null ? null : cut.json('llm_calls.workflow_steps', l.w),
    rt: typeof l.rt === 'string' ? cut.text('llm_calls.reasoning_text', l.rt) : l.rt,
    k: cut.clipped,
  };
}

const VISION_FIX = 'lower vision_range or turn off see_through (the start refuses settings that would need more)';
/** The most one vision tile can take in jsonb, ", " after it included: three safe integers, each at its widest. */
const WIDEST_TILE_BYTES = jsonbBytes(Array(3).fill(Number.MIN_SAFE_INTEGER)) + 2;

/**
 * An action's vision, refused if over its limit. One short enough that even its widest tiles fit is not counted
 * (every vision of a run the start let through: a turn's eight visions were counted number by number).
 */
function visionWithinLimit(vision: SeenTile[]): SeenTile[] {
  return vision.length * WIDEST_TILE_BYTES + 2 <= LIMITS['actions.vision']
    ? vision
    : refuseOversized('actions.vision', vision, VISION_FIX);
}
const STATE_FIX =
  'the agent monitor keeps every cell visited since the last progress: with stuck_policy "halt" or a lower ' +
  'max_moves a run that stopped making progress ends sooner';
const MEMORY_FIX =
  "the agent's memory is stored whole each turn: a conversation or history is cut to fit (memory.ts); " +
  "keep less in a workflow's variables";

function turnParams(t: TurnWrite): SqlValue[] {
  const s = t.stateAfter;
  // only the fields an agent writes can hold unstorable text, and only they are cut to fit; vision and positions
  // are ours
  const actions = t.actions.map((a) => {
    const cut = new RowClipper();
    return {
      c: a.callIndex,
      s: a.step,
      t: cut.text('actions.tool', pgSafe(a.tool)),
      a: cut.json('actions.arguments', pgSafe(a.arguments)),
      r: cut.text('actions.reasoning', pgSafe(a.reasoning)),
      x: cut.text('actions.assistant_text', pgSafe(a.assistantText)),
      p: a.parsedFromText,
      e: a.executed,
      ok: a.success,
      o: a.outcome,
      m: cut.text('actions.message', pgSafe(a.message)),
      fx: a.from.x,
      fy: a.from.y,
      tx: a.to.x,
      ty: a.to.y,
      v: visionWithinLimit(a.vision),
      n: a.newTiles,
      // what a recall returned follows from the logged visions (game.ts stateFromLog): only what fits is kept
      rc: cut.list('actions.recalled', a.recalled),
      g: a.goalFound,
      k: cut.clipped,
    };
  });
  return [
    t.experimentId,
    t.turnNumber,
    s.actionsTaken,
    s.tilesSeen,
    s.position.x,
    s.position.y,
    s.goalFound,
    t.startedAt,
    t.endedAt,
    t.stopReason,
    t.actions.filter((a) => a.executed).length,
    t.actions.filter((a) => !a.executed).length,
    t.totals.llmCalls,
    t.totals.inputTokens,
    t.totals.outputTokens,
    Math.round(t.totals.latencyMs),
    JSON.stringify(actions),
    t.totals.costUsd,
    jsonWithinLimit('turns.agent_state', t.agentStateAfter, STATE_FIX),
    t.agentStateAfter.phase,
    t.halt ? JSON.stringify(clipJson(t.halt, LIMITS['turns.halted_by'])) : null,
    t.agentMemoryAfter === undefined
      ? null
      : jsonWithinLimit('experiments.agent_memory', pgSafe(t.agentMemoryAfter), MEMORY_FIX),
    t.totals.cacheReadInputTokens,
    t.totals.cacheWriteInputTokens,
    t.provenance === undefined
      ? null
      : JSON.stringify(clipJson(pgSafe(t.provenance), LIMITS['experiments.provenance'])),
    t.tokenCalibration ?? null,
    t.priceKnown ?? null,
    t.providerWait?.waits ?? 0,
    t.providerWait?.seconds ?? 0,
    // what the turn spent, its belief probe's call included, added to the run's (its budgets: config.max_cost_usd,
    // max_tokens)
    spentTokens(t.totals) + probeSpend(t.probe).tokens,
    (t.totals.costUsd ?? 0) + probeSpend(t.probe).costUsd,
    // the run is simulated once any call is (a bundled simulator announced itself), and counts its cut prompts
    t.llmCalls.some((l) => l.simulator !== undefined) || (t.probe?.simulator ?? null) !== null,
    t.llmCalls.filter((l) => l.promptTruncated === true).length,
  ];
}
