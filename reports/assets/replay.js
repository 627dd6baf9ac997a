// The replay viewer: draws step s of a run from the packed data in #data
// with MazeCanvas (maze-canvas.js, inlined before this script): the true maze
// (dim where the agent has not seen it yet), the vision cone of step s, the
// path so far, the agent.
/* global MazeCanvas, bytes, typed -- maze-canvas.js is inlined before this script by replay-page.ts */
(() => {
  'use strict';
  const D = JSON.parse(document.getElementById('data').textContent);
  const N = D.steps;
  const xs = typed(D.x, Uint16Array),
    ys = typed(D.y, Uint16Array);
  const tool = bytes(D.tool),
    outcome = bytes(D.outcome),
    phase = bytes(D.phase);
  const turnOf = typed(D.turn, Uint32Array),
    coneStart = typed(D.visionStart, Uint32Array),
    cone = typed(D.visionCells, Uint32Array);
  const seenAt = typed(D.seenAt, Uint32Array);
  const notesByStep = new Map(D.notes.map((n) => [n.step, n]));
  const turnInfo = new Map(D.turns.map((t) => [t.turn, t]));

  const board = new MazeCanvas(document.getElementById('maze'), D.maze, 760);

  let step = 0;
  let playing = false;
  const scrub = document.getElementById('scrub');
  const speed = document.getElementById('speed');
  scrub.max = String(N);

  function draw() {
    board.draw({
      seenAt,
      step,
      cone: cone.subarray(coneStart[step], coneStart[step + 1]),
      paths: [{ xs, ys, upTo: step, colour: 'rgba(37, 99, 235, 0.55)' }],
      agents: [{ x: xs[step], y: ys[step], colour: 'rgb(220, 38, 38)' }],
    });
    info();
  }

  const text = (id, value) => {
    document.getElementById(id).textContent = value;
  };
  function info() {
    scrub.value = String(step);
    text('step', `${step} / ${N}`);
    text('position', `(${xs[step]},${ys[step]})`);
    const turn = step === 0 ? 0 : turnOf[step];
    const t = turnInfo.get(turn);
    text('turn', step === 0 ? 'start' : `${turn}${t ? ` (ended: ${t.stopReason})` : ''}`);
    text('tokens', t && t.inputTokens !== null ? `${t.inputTokens} in, ${t.outputTokens} out` : '-');
    text('action', step === 0 ? '-' : `${D.tools[tool[step]]}: ${D.outcomes[outcome[step]]}`);
    text('phase', D.phases[phase[step]]);
    const signals = D.signals.filter((g) => g.step <= step);
    text(
      'signals',
      signals.length === 0 ? 'none' : signals.map((g) => `${g.detector} at ${g.step}: ${g.detail}`).join('\n'),
    );
    const note = notesByStep.get(step);
    text(
      'words',
      note
        ? [note.text, note.reasoning ? `reasoning: ${note.reasoning}` : null, note.call].filter(Boolean).join('\n')
        : '',
    );
  }

  let queued = false;
  function go(s) {
    step = Math.max(0, Math.min(N, s | 0));
    if (!queued) {
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        draw();
      });
    }
  }
  let last = 0,
    carry = 0;
  function tick(now) {
    if (!playing) return;
    const perSecond = Number(speed.value);
    carry += last ? ((now - last) / 1000) * perSecond : 0;
    last = now;
    if (carry >= 1) {
      const n = Math.floor(carry);
      carry -= n;
      go(step + n);
    }
    if (step >= N) {
      setPlaying(false);
      return;
    }
    requestAnimationFrame(tick);
  }
  function setPlaying(on) {
    playing = on && step < N;
    document.getElementById('play').textContent = playing ? 'Pause' : 'Play';
    last = 0;
    carry = 0;
    if (playing) requestAnimationFrame(tick);
  }
  document.getElementById('play').addEventListener('click', () => setPlaying(!playing));
  document.getElementById('back').addEventListener('click', () => {
    setPlaying(false);
    go(step - 1);
  });
  document.getElementById('forward').addEventListener('click', () => {
    setPlaying(false);
    go(step + 1);
  });
  scrub.addEventListener('input', () => {
    setPlaying(false);
    go(Number(scrub.value));
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === ' ') {
      e.preventDefault();
      setPlaying(!playing);
    }
    if (e.key === 'ArrowRight') go(step + 1);
    if (e.key === 'ArrowLeft') go(step - 1);
  });

  draw();
  // for tests and benchmarks: the first draw's time, and a way to drive the viewer
  window.__replay = {
    firstDrawMs: performance.now(),
    steps: N,
    go: (s) => {
      step = Math.max(0, Math.min(N, s | 0));
      draw();
      return { step, x: xs[step], y: ys[step] };
    },
    agentPixel: () => board.pixelOf(xs[step], ys[step]),
  };
})();
