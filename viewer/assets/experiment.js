// One experiment: the maze with what the agent had seen by the step shown, its view cone and path; a timeline of
// the run (turn boundaries, stuck signals) with a scrubber; each turn's model calls, tool calls, reasoning,
// tokens, latency and agent-state changes, read a window of turns at a time. While the experiment runs, new
// turns arrive over the live stream and the view follows the newest step unless the scrubber was moved back: the
// page asks only for the turns after the last one it holds (`?after=`) and appends them (append below).
import { api, el, fmt, foldedLines, idLink, live, shown, typed, urlState } from './common.js';
import { MazeCanvas } from './maze-canvas.js'; // served from reports/assets (shared with the replay file)

performance.mark('script'); // the page's own timeline (bench/viewer.ts prints it): its script running
const id = decodeURIComponent(location.pathname.split('/').pop());
const $ = (x) => document.getElementById(x);
const scrub = $('scrub');
const TURN_WINDOW = 20;

let D = null; // the replay data (reports/replay-data.ts), decoded
let view = null;
let step = Number(urlState().step ?? NaN);
/** A step asked for in the URL beyond what the first read held: shown once the rest of the run arrives. */
let wanted = Number.isFinite(step) ? step : null;
/**
 * The first read: the run's head, which the server streams inside the page (experiment-routes.ts chooses how many
 * steps: `?head=` in the page's URL, or enough for `?step=`); null when it could not, and then, as to read the run
 * again, the same read from the API (its `data-src`). The rest follows by `after`.
 */
const firstRead = document.getElementById('first-read');
const FIRST = firstRead.dataset.src;
let inlined = JSON.parse(firstRead.textContent);
let playing = false;
const turnCache = new Map(); // turn number -> detail
const pictureCache = new Map(); // turn number -> its calls' pictures (a run under the image format), as a promise
const signalColour = '#dc2626';
const forkColour = '#1b7c83';
const NEVER = 0xffffffff;

/** Per cell, the first step whose cone holds it (NEVER: none yet), as reports/replay-data.ts counts it. */
function seenFrom(coneStart, cone, steps, cells) {
  const seenAt = new Uint32Array(cells).fill(NEVER);
  for (let s = 0; s <= steps; s++)
    for (let i = coneStart[s]; i < coneStart[s + 1]; i++) if (seenAt[cone[i]] === NEVER) seenAt[cone[i]] = s;
  return seenAt;
}

function decode(data) {
  const coneStart = typed(data.visionStart, Uint32Array);
  const cone = typed(data.visionCells, Uint32Array);
  return {
    raw: data,
    N: data.steps,
    xs: typed(data.x, Uint16Array),
    ys: typed(data.y, Uint16Array),
    tool: typed(data.tool, Uint8Array),
    outcome: typed(data.outcome, Uint8Array),
    phase: typed(data.phase, Uint8Array),
    turnOf: typed(data.turn, Uint32Array),
    coneStart,
    cone,
    seenAt: seenFrom(coneStart, cone, data.steps, data.maze.width * data.maze.height),
    turns: new Map(data.turns.map((t) => [t.turn, t])),
  };
}

function headline(d) {
  const e = d.raw.experiment;
  $('title').textContent = `Experiment ${e.experiment_id}`;
  const parts = [
    // a person's game (agent human) by its player
    `${d.raw.label ?? e.model ?? e.player ?? e.agent} ` +
      `(${e.agent}${e.model ? `, ${e.model}` : e.player ? ', a person' : ''}) on ${e.maze_generator} ` +
      `${e.maze_width}x${e.maze_height} seed ${e.maze_seed ?? '-'}: `,
    el('b', { class: `status ${e.status}` }, e.status),
    e.stop_reason ? ` (${e.stop_reason})` : '',
    `, ${fmt.int(e.actions)} actions, optimal ${fmt.int(e.optimal_moves)}`,
    e.efficiency !== null ? `, efficiency ${fmt.num(e.efficiency)}` : '',
    `, ${fmt.int(e.turns)} turns`,
    e.input_tokens !== null ? `, ${fmt.int(e.input_tokens)} tokens in, ${fmt.int(e.output_tokens)} out` : '',
    e.cost_usd !== null ? `, ${fmt.usd(e.cost_usd)}` : '',
    d.raw.sweep_id ? ' \u00b7 sweep ' : '',
    ...(d.raw.sweep_id ? idLink(`/sweeps/${encodeURIComponent(d.raw.sweep_id)}`, d.raw.sweep_id) : []),
  ];
  $('headline').replaceChildren(...parts);
  if (e.failure_reason) $('headline').append(el('div', { class: 'problem' }, `failed: ${e.failure_reason}`));
  if (d.raw.simulated)
    $('headline').append(
      el(
        'div',
        { class: 'simulated why' },
        'SIMULATED: a bundled simulator answered its model calls, not the model named',
      ),
    );
  if (d.raw.prompt_truncated_calls > 0)
    $('headline').append(
      el(
        'div',
        { class: 'problem' },
        `${d.raw.prompt_truncated_calls} model call(s) had the prompt cut to the server's context window`,
      ),
    );
  if (d.raw.stale) $('headline').append(el('div', { class: 'stale why' }, `STALE: ${d.raw.stale}`));
  if (d.raw.interrupted)
    $('headline').append(
      el(
        'div',
        { class: 'interrupted why' },
        `INTERRUPTED: ${d.raw.interrupted}; resume with: ariadne resume ${e.experiment_id}`,
      ),
    );
  $('headline').append(...[lineageView(d.raw.lineage)].filter(Boolean));
  forkNote(d.raw.lineage);
  if (d.raw.prompt) {
    $('prompt').hidden = false;
    $('prompt').querySelector('summary').textContent = `system prompt (${d.raw.prompt.version ?? 'custom'})`;
    $('prompt-text').textContent = d.raw.prompt.text;
  }
}

const runLink = (rid, step) => idLink(`/experiments/${encodeURIComponent(rid)}${step ? `?step=${step}` : ''}`, rid);

/** Each item, comma-separated. */
const listed = (items) => items.flatMap((item, k) => (k === 0 ? [item] : [', ', item]).flat());

/** The compare page of this run and `other` (on one maze: a replay or fork and the run it comes from). */
const compareWith = (other) =>
  el(
    'a',
    { class: 'compare', href: `/compare?ids=${encodeURIComponent(other)},${encodeURIComponent(id)}` },
    'compare the two',
  );

/**
 * Where the run comes from (the run it replays, the run it was forked from) and what came of it (its replays and
 * forks), each run linked whole: a fork's and its parent's at the fork point. Null for a run with none.
 */
function lineageView(lineage) {
  if (!lineage) return null;
  const lines = [];
  if (lineage.replay_of)
    lines.push([
      el('b', {}, 'REPLAY'),
      ' of ',
      runLink(lineage.replay_of),
      ' (its model calls answered from the recorded replies) \u00b7 ',
      compareWith(lineage.replay_of),
    ]);
  if (lineage.forked_from)
    lines.push([
      el('b', {}, 'FORK'),
      ' forked from ',
      runLink(lineage.forked_from, lineage.fork_step),
      ` after step ${lineage.fork_step} (its steps up to ${lineage.fork_step} are the parent's) \u00b7 `,
      compareWith(lineage.forked_from),
    ]);
  if (lineage.replays.length > 0) lines.push(['replayed as ', listed(lineage.replays.map((r) => runLink(r)))]);
  if (lineage.forks.length > 0)
    lines.push([
      'forked as ',
      listed(lineage.forks.map((f) => [runLink(f.experiment_id, f.fork_step), ` after step ${f.fork_step}`])),
    ]);
  return el('div', { class: 'lineage' }, ...lines.map((l) => el('div', {}, ...l.flat())));
}

/** Under the timeline, what its fork-point mark means; only on a fork's page. */
function forkNote(lineage) {
  let note = $('fork-note');
  if (!lineage?.fork_step) return note?.remove();
  if (!note) {
    note = el('p', { id: 'fork-note', class: 'fork-note' });
    document.querySelector('.timeline').after(note);
  }
  note.replaceChildren(
    el('span', { class: 'k fork' }),
    `fork point: steps up to ${lineage.fork_step} are the parent's (`,
    ...runLink(lineage.forked_from, lineage.fork_step),
    '), the rest its own',
  );
}

const joined = (a, b) => {
  const c = new a.constructor(a.length + b.length);
  c.set(a);
  c.set(b, a.length);
  return c;
};

/** The last turn the page holds: of its last step, or a later turn that executed no action. */
const heldTurn = () => Math.max(D.N > 0 ? D.turnOf[D.N] : 0, D.raw.turns.at(-1)?.turn ?? 0);

/**
 * The update of a live run (reports/replay-data.ts ReplayUpdate) added to D, as a fresh load would have it: the new
 * steps' arrays after the held ones (the phase of the last held step replaced: a new turn may change it), cones
 * shifted past the held cells, and the cells they show first marked seen at their step. False when the update does
 * not start where the page stands (the run was read whole since): the caller reads it whole then.
 */
function append(u) {
  if (u.afterStep !== D.N) return false;
  const n = D.N;
  const base = D.cone.length;
  const cells = typed(u.visionCells, Uint32Array);
  const starts = typed(u.visionStart, Uint32Array).map((v) => v + base);
  for (let k = 0; k < u.steps; k++)
    for (let i = starts[k]; i < starts[k + 1]; i++) {
      const c = cells[i - base];
      if (D.seenAt[c] === NEVER) D.seenAt[c] = n + 1 + k;
    }
  D.xs = joined(D.xs, typed(u.x, Uint16Array));
  D.ys = joined(D.ys, typed(u.y, Uint16Array));
  D.tool = joined(D.tool, typed(u.tool, Uint8Array));
  D.outcome = joined(D.outcome, typed(u.outcome, Uint8Array));
  D.turnOf = joined(D.turnOf, typed(u.turn, Uint32Array));
  D.phase = joined(D.phase.subarray(0, n), typed(u.phase, Uint8Array));
  D.coneStart = joined(D.coneStart.subarray(0, n + 1), starts);
  D.cone = joined(D.cone, cells);
  D.N = n + u.steps;
  for (const t of u.turns) D.turns.set(t.turn, t);
  Object.assign(D.raw, {
    experiment: { ...u.experiment, config: D.raw.experiment.config },
    steps: D.N,
    turns: [...D.raw.turns, ...u.turns],
    signals: [...D.raw.signals, ...u.signals],
    notes: [...(D.raw.notes ?? []), ...u.notes],
    stale: u.stale,
    interrupted: u.interrupted,
  });
  return true;
}

/** The timeline: one tick per turn boundary, a red mark per stuck signal, the current step as a line. */
function drawTimeline() {
  const c = $('timeline');
  const w = (c.width = c.clientWidth || 760);
  const h = (c.height = 22);
  const ctx = c.getContext('2d');
  ctx.clearRect(0, 0, w, h);
  // scaled to the whole run while the rest of a long one is still on its way
  const total = Math.max(D.N, Number(D.raw.experiment.actions));
  const at = (s) => (total === 0 ? 0 : (s / total) * (w - 1));
  ctx.fillStyle = '#d0d7de';
  for (const t of D.raw.turns) ctx.fillRect(Math.round(at(t.firstStep - 1)), 12, 1, 10);
  const forkStep = D.raw.lineage?.fork_step;
  if (forkStep) {
    // the parent's steps shaded, the fork point a bar
    ctx.fillStyle = 'rgba(27, 124, 131, 0.15)';
    ctx.fillRect(0, 0, Math.round(at(forkStep)), h);
    ctx.fillStyle = forkColour;
    ctx.fillRect(Math.round(at(forkStep)) - 1, 0, 3, h);
  }
  ctx.fillStyle = signalColour;
  for (const g of D.raw.signals) ctx.fillRect(Math.round(at(g.step)) - 1, 0, 3, 12);
  ctx.fillStyle = '#2563eb';
  ctx.fillRect(Math.round(at(step)), 0, 2, h);
}

function draw() {
  view.draw({
    seenAt: D.seenAt,
    step,
    cone: D.cone.subarray(D.coneStart[step], D.coneStart[step + 1]),
    paths: [{ xs: D.xs, ys: D.ys, upTo: step, colour: 'rgb(37, 99, 235)' }],
    agents: [{ x: D.xs[step], y: D.ys[step], colour: 'rgb(220, 38, 38)' }],
  });
  drawTimeline();
  scrub.max = String(D.N);
  scrub.value = String(step);
  $('step').textContent = `${step} / ${D.N}`;
  $('position').textContent = `(${D.xs[step]},${D.ys[step]})`;
  const turn = step === 0 ? 0 : D.turnOf[step];
  const t = D.turns.get(turn);
  $('turn').textContent = step === 0 ? 'start' : `${turn}${t ? ` (ended: ${t.stopReason})` : ''}`;
  $('action').textContent = step === 0 ? '-' : `${D.raw.tools[D.tool[step]]}: ${D.raw.outcomes[D.outcome[step]]}`;
  $('phase').textContent = D.raw.phases[D.phase[step]];
  const signals = D.raw.signals.filter((g) => g.step <= step);
  $('signals').replaceChildren(
    ...[
      signals.length === 0 ? 'none' : foldedLines(signals.map((g) => `${g.detector} at step ${g.step}: ${g.detail}`)),
    ].flat(),
  );
  showTurn(turn === 0 ? 1 : turn);
}

let queued = false;
function go(s) {
  step = Math.max(0, Math.min(D.N, s | 0));
  if (!queued) {
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      draw();
    });
  }
}

// ---- the turn panel: a window of turns fetched at a time, cached ----
let shownTurn = null;
async function showTurn(turn) {
  if (turn === shownTurn && turnCache.has(turn)) return highlight();
  shownTurn = turn;
  $('turn-number').textContent = String(turn);
  if (!turnCache.has(turn)) {
    const from = Math.max(1, turn - Math.floor(TURN_WINDOW / 2));
    const data = await shown(() =>
      api(`/api/experiments/${encodeURIComponent(id)}/turns`, { from, count: TURN_WINDOW }),
    );
    if (!data) return;
    for (const t of data.turns) turnCache.set(t.turn.turn_number, t);
    if (shownTurn !== turn) return; // the scrubber moved on while this was read
  }
  const detail = turnCache.get(turn);
  // only the turn shown draws its pictures, so a long run's page asks for none it does not show
  const pictures = detail && detail.calls.length > 0 && showsPictures() ? await picturesOf(turn) : null;
  if (shownTurn !== turn) return;
  $('turn-detail').replaceChildren(
    detail ? turnView(detail, pictures) : el('p', { class: 'na' }, 'no turn recorded yet'),
  );
  highlight();
}

/** The run showed its model pictures (observation image): each call's are drawn again by the server. */
const showsPictures = () => D.raw.experiment.config?.observation === 'image';

/** A turn's pictures per call (viewer/routes/picture-routes.ts); a failed read is asked again next time. */
function picturesOf(turn) {
  if (!pictureCache.has(turn)) {
    const read = shown(() => api(`/api/experiments/${encodeURIComponent(id)}/turns/${turn}/pictures`));
    pictureCache.set(turn, read);
    read.then((p) => p || pictureCache.delete(turn));
  }
  return pictureCache.get(turn);
}

/** Shown twice their size, each pixel a square (viewer.css: image-rendering: pixelated), so tiles are plain. */
const PICTURE_SCALE = 2;

/**
 * The pictures a model call first sent, each captioned with the view it is, and flagged when, drawn again from the
 * stored vision, it does not hash to what the call recorded: then the stored state is not what the model saw.
 */
function picturesView(shownInCall) {
  if (!shownInCall || (shownInCall.pictures.length === 0 && shownInCall.unexplained.length === 0)) return null;
  const figures = shownInCall.pictures.map((p) => {
    const caption =
      p.step === null ? `turn's first view at (${p.x},${p.y})` : `after step ${p.step} at (${p.x},${p.y})`;
    const short = (hash) => `${hash.slice(0, 12)}\u2026`;
    const why =
      p.recorded === null
        ? 'drawn again, this picture has no recorded hash: the call recorded fewer pictures than it sent'
        : 'drawn again, this picture does not match what the model was sent ' +
          `(sha256 ${short(p.recorded)} recorded, ${short(p.drawn)} drawn again)`;
    const width = p.width * PICTURE_SCALE;
    return el(
      'figure',
      { class: p.matches ? 'picture' : 'picture mismatch', 'data-step': p.step ?? 'first' },
      el('img', {
        src: p.src,
        alt: `picture sent to the model: ${caption}`,
        title: `sha256 ${p.recorded ?? '(none recorded)'}`,
        width,
        height: p.height * PICTURE_SCALE,
        loading: 'lazy',
        decoding: 'async',
      }),
      // the caption wraps at the picture's width (CSSOM: the policy refuses style attributes)
      el(
        'figcaption',
        { style: { maxWidth: `${width}px` } },
        caption,
        p.matches ? null : el('b', { class: 'problem' }, why),
      ),
    );
  });
  const extra = shownInCall.unexplained;
  return el(
    'div',
    { class: 'pictures' },
    figures,
    extra.length
      ? el(
          'p',
          { class: 'problem' },
          `the call recorded ${extra.length} more picture(s) than the stored state explains: sha256 ` +
            extra.map((h) => `${h.slice(0, 12)}\u2026`).join(', '),
        )
      : null,
  );
}

/** Reasoning tokens and where the figure comes from: the provider's count, else an estimate from the text. */
const reasoningTokens = (c) =>
  c.reported_reasoning_tokens !== null && c.reported_reasoning_tokens !== undefined
    ? `${fmt.int(c.reported_reasoning_tokens)} tokens, as reported`
    : `~${fmt.int(c.reasoning_tokens)} tokens, estimated`;

/**
 * Who answered a model call, when its exchanges were recorded: "replayed" when the recorded reply of the run it
 * replays (or of the parent, up to a fork point) answered it, "cached" when config.cache did, not the model;
 * nothing for the model or no record.
 */
function answeredBy(c) {
  if (c.answered_by === null || c.answered_by === undefined || c.answered_by === 'model') return null;
  if (c.answered_by === 'cache')
    return el('b', { class: 'replayed', title: 'answered from the cache: a reply recorded by another run' }, ' cached');
  const source = D.raw.lineage?.replay_of ?? D.raw.lineage?.forked_from;
  const title = `answered from the recorded reply${source ? ` of ${source}` : ''}, not by the model`;
  return el(
    'b',
    { class: 'replayed', title },
    c.answered_by === 'replay' ? ' replayed' : ' partly from the record (some requests answered by the model)',
  );
}

function highlight() {
  for (const r of document.querySelectorAll('#turn-detail tr.current')) r.classList.remove('current');
  document.querySelector(`#turn-detail tr[data-step="${step}"]`)?.classList.add('current');
}

const json = (v) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

function turnView({ turn, calls, actions, transitions, signals }, pictures) {
  const tokens =
    turn.input_tokens === null
      ? 'no model tokens'
      : `${fmt.int(turn.input_tokens)} in, ${fmt.int(turn.output_tokens)} out` +
        (turn.cache_read_input_tokens ? `, ${fmt.int(turn.cache_read_input_tokens)} cache read` : '') +
        (turn.cache_write_input_tokens ? `, ${fmt.int(turn.cache_write_input_tokens)} cache write` : '');
  const summary = el(
    'p',
    { class: 'turn-summary' },
    `ended: ${turn.stop_reason}; ${turn.actions_executed} actions, ${turn.calls_refused} refused; ` +
      `${turn.llm_calls} model call(s), ${tokens}; ${fmt.int(turn.latency_ms)} ms` +
      (turn.cost_usd !== null ? `; ${fmt.usd(turn.cost_usd)}` : '') +
      `; phase after: ${turn.agent_phase ?? '-'}`,
  );
  if (turn.halted_by) summary.append(el('b', { class: 'problem' }, ` halted by ${json(turn.halted_by)}`));
  const callViews = calls.map((c) =>
    el(
      'div',
      { class: c.answered_by === 'replay' || c.answered_by === 'cache' ? 'call replayed' : 'call' },
      el(
        'div',
        { class: 'call-head' },
        `model call ${c.call_index}: ${fmt.int(c.input_tokens)} in, ${fmt.int(c.output_tokens)} out, ` +
          `${fmt.int(c.latency_ms)} ms, stop ${c.stop_reason ?? '-'}` +
          (c.context_window ? `, prompt ~${fmt.int(c.prompt_estimate)} of ${fmt.int(c.context_window)}` : '') +
          (c.context_trimmed ? `, ${c.context_trimmed} trimmed` : '') +
          (c.estimate_off ? ', estimate >10% off the reported count' : '') +
          (Array.isArray(c.retries) && c.retries.length ? `, ${c.retries.length} retried attempt(s)` : ''),
        c.truncated ? el('b', { class: 'problem' }, ' cut by the output cap') : null,
        c.prompt_truncated ? el('b', { class: 'problem' }, " prompt cut to the server's context window") : null,
        c.simulator ? el('b', { class: 'simulated' }, ` answered by the ${c.simulator} simulator`) : null,
        answeredBy(c),
      ),
      picturesView(pictures?.calls.find((p) => p.call === c.call_index)),
      // the model's reasoning (Ollama thinking, Bedrock reasoningContent, an OpenAI-compatible server's
      // reasoning_content) next to its reply
      c.reasoning_text
        ? el(
            'details',
            { class: 'reasoning' },
            el('summary', {}, `reasoning (${reasoningTokens(c)})`),
            el('pre', { class: 'reply' }, c.reasoning_text),
          )
        : null,
      // OpenAI's own API counts the reasoning it spent but returns none of it
      !c.reasoning_text && c.reported_reasoning_tokens > 0
        ? el(
            'p',
            { class: 'reasoning-note' },
            `reasoning: ${fmt.int(c.reported_reasoning_tokens)} tokens as reported; ` +
              'the server returned no reasoning text',
          )
        : null,
      c.assistant_text ? el('pre', { class: 'reply' }, c.assistant_text) : null,
      Array.isArray(c.retries) && c.retries.length
        ? el(
            'pre',
            { class: 'retries' },
            c.retries.map((r) => `attempt ${r.attempt}: ${json(r.error ?? r.status)}`).join('\n'),
          )
        : null,
    ),
  );
  const forkStep = D.raw.lineage?.fork_step;
  const actionRows = actions.flatMap((a) => [
    el(
      'tr',
      { 'data-step': a.step_number ?? '', class: a.executed ? null : 'refused' },
      el('td', { class: 'n' }, a.step_number ?? '-'),
      el('td', {}, a.tool),
      el('td', { class: 'args' }, json(a.arguments)),
      el('td', { class: a.success ? 'yes' : 'no' }, a.outcome),
      el('td', {}, `(${a.from_x},${a.from_y})\u2192(${a.to_x},${a.to_y})`),
      el('td', { class: 'n' }, a.new_tiles_seen),
      el('td', { class: 'msg' }, a.reasoning ? `${a.message}\nreasoning: ${a.reasoning}` : a.message),
    ),
    forkStep && a.step_number === forkStep
      ? el(
          'tr',
          { class: 'fork-point' },
          el('td', { colspan: 7 }, `fork point: steps up to ${forkStep} are the parent's, the rest this run's own`),
        )
      : null,
  ]);
  const changes = [
    ...transitions.map(
      (t) =>
        `${t.machine}: ${t.from_phase} \u2192 ${t.to_phase} at step ${t.step_number} (${t.cause})` +
        (t.refused ? ' refused' : ''),
    ),
    ...signals.map((g) => `stuck signal ${g.detector} at step ${g.step_number} (${g.policy}): ${g.detail}`),
  ];
  return el(
    'div',
    {},
    summary,
    callViews,
    el(
      'table',
      { class: 'grid actions' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ['step', 'tool', 'arguments', 'outcome', 'move', 'new tiles', 'what it was told'].map((h) => el('th', {}, h)),
        ),
      ),
      el('tbody', {}, actionRows),
    ),
    changes.length ? el('pre', { class: 'changes' }, foldedLines(changes, 10)) : null,
  );
}

// ---- controls ----
let last = 0,
  carry = 0;
function tick(now) {
  if (!playing) return;
  carry += last ? ((now - last) / 1000) * Number($('speed').value) : 0;
  last = now;
  if (carry >= 1) {
    const n = Math.floor(carry);
    carry -= n;
    go(step + n);
  }
  if (step >= D.N) return setPlaying(false);
  requestAnimationFrame(tick);
}
function setPlaying(on) {
  playing = on && step < D.N;
  $('play').textContent = playing ? 'Pause' : 'Play';
  last = carry = 0;
  if (playing) requestAnimationFrame(tick);
}
function wire() {
  $('play').addEventListener('click', () => setPlaying(!playing));
  $('back').addEventListener('click', () => (setPlaying(false), go(step - 1)));
  $('forward').addEventListener('click', () => (setPlaying(false), go(step + 1)));
  scrub.addEventListener('input', () => (setPlaying(false), go(Number(scrub.value))));
  $('timeline').addEventListener('click', (e) => {
    const r = e.target.getBoundingClientRect();
    go(Math.round(((e.clientX - r.left) / r.width) * D.N));
  });
  document.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement && e.target.type !== 'range') return;
    if (e.key === ' ') {
      e.preventDefault();
      setPlaying(!playing);
    }
    if (e.key === 'ArrowRight') go(step + 1);
    if (e.key === 'ArrowLeft') go(step - 1);
  });
}

async function load() {
  const data = inlined ?? (await shown(() => api(FIRST)));
  inlined = null; // read once: a later load reads the run as it stands then
  if (!data) return false;
  if (D === null) performance.mark('data');
  const atEnd = D === null || step >= D.N;
  const first = D === null;
  D = decode(data);
  if (first) performance.mark('decoded');
  if (first) view = new MazeCanvas($('maze'), data.maze);
  headline(D);
  if (first) step = Number.isFinite(step) ? Math.min(step, D.N) : data.experiment.status === 'running' ? D.N : 0;
  else if (atEnd && $('follow').checked) step = D.N;
  shownTurn = null;
  draw();
  return true;
}

if (await load()) {
  wire();
  window.__viewer = {
    ready: true,
    firstDrawMs: performance.now(),
    get steps() {
      return D.N;
    },
    get step() {
      return step;
    },
    go: (s) => {
      step = Math.max(0, Math.min(D.N, s | 0));
      draw();
      return { step, x: D.xs[step], y: D.ys[step] };
    },
    agentPixel: () => view.pixelOf(D.xs[step], D.ys[step]),
    reloads: 0,
    updates: 0,
    /** What the page holds, to compare with a fresh load's. */
    held: () => ({
      steps: D.N,
      arrays: [D.xs, D.ys, D.tool, D.outcome, D.turnOf, D.phase, D.coneStart, D.cone, D.seenAt].map((a) =>
        Array.from(a),
      ),
      turns: D.raw.turns,
      signals: D.raw.signals,
      notes: D.raw.notes,
      experiment: D.raw.experiment,
    }),
  };
  // a live run: only the turns after the last one held, appended (read whole only if they do not follow on); one
  // read at a time, and changes heard meanwhile make one more
  const updateOnce = async () => {
    const u = await shown(() => api(`/api/experiments/${encodeURIComponent(id)}`, { after: heldTurn() }));
    if (!u) return;
    if (!append(u)) {
      if (await load()) window.__viewer.reloads++;
      again ||= short();
      return;
    }
    headline(D);
    if (step >= u.afterStep && $('follow').checked) step = D.N;
    if (wanted !== null && wanted <= D.N) [step, wanted] = [wanted, null];
    shownTurn = null;
    draw();
    window.__viewer.updates++;
    // on while each read brings steps: a summary read a moment later may count a turn the read did not hold yet
    if (short() && u.steps > 0) again = true;
    else window.__viewer.wholeMs ??= performance.now();
  };
  /** True while the page holds fewer steps than the run had when last read (a long run's first read is its head). */
  const short = () => D.N < Number(D.raw.experiment.actions);
  let reading = null;
  let again = false;
  const update = () => {
    if (reading) return void (again = true);
    reading = (async () => {
      do {
        again = false;
        await updateOnce();
      } while (again);
    })().finally(() => (reading = null));
  };
  // read again when the stream starts only if the run can still have changed since the first read
  live(
    (changes) => {
      const e = D.raw.experiment;
      if (changes.some((c) => c.experiment_id === id && (c.actions !== D.N || c.status !== e.status))) update();
    },
    () => D.raw.experiment.status === 'running' && update(),
  );
  // a run longer than the first read: the rest, after the first draw
  if (short()) update();
  else window.__viewer.wholeMs = window.__viewer.firstDrawMs;
}
