// The replay viewer: draws step s of a run from the packed data in #data.
// Layers: the true maze (dim where the agent has not seen it yet), the
// vision cone of step s, the path so far, the agent. One ImageData pass per
// frame at one pixel per cell, scaled up without smoothing, so a 201x201
// maze and a 10,000-step run redraw in a few milliseconds.
(() => {
  'use strict';
  const D = JSON.parse(document.getElementById('data').textContent);
  const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const view = (b64, T) => {
    const u = bytes(b64);
    return new T(u.buffer, u.byteOffset, u.byteLength / T.BYTES_PER_ELEMENT);
  };
  const W = D.maze.width,
    H = D.maze.height,
    N = D.steps;
  const grid = bytes(D.maze.grid);
  const xs = view(D.x, Uint16Array),
    ys = view(D.y, Uint16Array);
  const tool = bytes(D.tool),
    outcome = bytes(D.outcome),
    phase = bytes(D.phase);
  const turnOf = view(D.turn, Uint32Array),
    coneStart = view(D.visionStart, Uint32Array),
    cone = view(D.visionCells, Uint32Array);
  const seenAt = view(D.seenAt, Uint32Array);
  const notesByStep = new Map(D.notes.map((n) => [n.step, n]));
  const turnInfo = new Map(D.turns.map((t) => [t.turn, t]));

  const canvas = document.getElementById('maze');
  const ctx = canvas.getContext('2d');
  const scale = Math.max(2, Math.floor(Math.min(760 / W, 760 / H)));
  canvas.width = W * scale;
  canvas.height = H * scale;
  const layer = document.createElement('canvas');
  layer.width = W;
  layer.height = H;
  const lctx = layer.getContext('2d');
  const img = lctx.createImageData(W, H);
  const px = new Uint32Array(img.data.buffer);
  // ABGR (little-endian) colours
  const rgba = (r, g, b, a = 255) => ((a << 24) | (b << 16) | (g << 8) | r) >>> 0;
  const C = {
    openKnown: rgba(245, 242, 232),
    wallKnown: rgba(40, 44, 52),
    goalKnown: rgba(46, 160, 67),
    openUnknown: rgba(214, 214, 214),
    wallUnknown: rgba(150, 150, 150),
    goalUnknown: rgba(120, 190, 130),
    cone: rgba(255, 214, 92),
    coneWall: rgba(150, 110, 20),
  };

  let step = 0;
  let playing = false;
  const scrub = document.getElementById('scrub');
  const speed = document.getElementById('speed');
  scrub.max = String(N);

  function draw() {
    for (let i = 0; i < W * H; i++) {
      const known = seenAt[i] <= step;
      const t = grid[i];
      px[i] =
        t === 1
          ? known
            ? C.wallKnown
            : C.wallUnknown
          : t === 2
            ? known
              ? C.goalKnown
              : C.goalUnknown
            : known
              ? C.openKnown
              : C.openUnknown;
    }
    for (let k = coneStart[step]; k < coneStart[step + 1]; k++)
      px[cone[k]] = grid[cone[k]] === 1 ? C.coneWall : grid[cone[k]] === 2 ? C.goalKnown : C.cone;
    lctx.putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(layer, 0, 0, W * scale, H * scale);
    // the path so far
    ctx.strokeStyle = 'rgba(37, 99, 235, 0.55)';
    ctx.lineWidth = Math.max(1, scale / 3);
    ctx.beginPath();
    ctx.moveTo((xs[0] + 0.5) * scale, (ys[0] + 0.5) * scale);
    for (let s = 1; s <= step; s++) ctx.lineTo((xs[s] + 0.5) * scale, (ys[s] + 0.5) * scale);
    ctx.stroke();
    // start and agent
    ctx.fillStyle = 'rgb(124, 58, 237)';
    ctx.fillRect(D.maze.start[0] * scale, D.maze.start[1] * scale, scale, scale);
    ctx.fillStyle = 'rgb(220, 38, 38)';
    ctx.beginPath();
    ctx.arc((xs[step] + 0.5) * scale, (ys[step] + 0.5) * scale, Math.max(2, scale * 0.45), 0, Math.PI * 2);
    ctx.fill();
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
    agentPixel: () => ({ x: (xs[step] + 0.5) * scale, y: (ys[step] + 0.5) * scale }),
  };
})();
