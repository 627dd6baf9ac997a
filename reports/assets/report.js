// Charts of the sweep report (Chart.js), one series per agent label and varied setting (never pooled): success rate
// vs maze size with Wilson 95% bars, efficiency of successful runs (a path walked by several runs drawn once, larger,
// with its count), tokens per success; both axes labelled. Numbers are written by StatFormat (reports/stat-format.ts,
// inlined by report-page.ts or set by the viewer). Each chart is registered in window.__report for tests.
/* global Chart, StatFormat -- Chart.js (UMD build) and the formats are loaded before this script */
(() => {
  'use strict';
  const D = JSON.parse(document.getElementById('data').textContent);
  const PALETTE = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#4b5563', '#ca8a04'];
  // a series: the label and the settings that reach its agent ({} when the sweep varies none of them)
  const settingsText = (s) =>
    Object.entries(s ?? {})
      .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`)
      .join(' ');
  const seriesOf = (row) => {
    const s = settingsText(row.settings);
    return s ? `${row.label} (${s})` : row.label;
  };
  const series = [...new Set(D.stats.map(seriesOf))];
  const colour = (name) => PALETTE[series.indexOf(name) % PALETTE.length];
  const generators = [...new Set(D.stats.map((s) => s.maze_generator))];
  const sizes = [...new Set(D.stats.map((s) => s.maze_size))].sort((a, b) => a - b);
  const charts = [];
  Chart.defaults.animation = false;
  const axis = (text) => ({ display: true, text });
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

  // vertical bars from each point's low to high (dataset.intervals)
  const intervals = {
    id: 'intervals',
    afterDatasetsDraw(chart) {
      const { ctx } = chart;
      chart.data.datasets.forEach((ds, i) => {
        if (!ds.intervals || chart.getDatasetMeta(i).hidden) return;
        const y = chart.scales.y;
        chart.getDatasetMeta(i).data.forEach((pt, j) => {
          const iv = ds.intervals[j];
          if (!iv || iv[0] === null) return;
          ctx.save();
          ctx.strokeStyle = ds.borderColor;
          ctx.lineWidth = 1.5;
          ctx.beginPath();
          ctx.moveTo(pt.x, y.getPixelForValue(iv[0]));
          ctx.lineTo(pt.x, y.getPixelForValue(iv[1]));
          ctx.moveTo(pt.x - 4, y.getPixelForValue(iv[0]));
          ctx.lineTo(pt.x + 4, y.getPixelForValue(iv[0]));
          ctx.moveTo(pt.x - 4, y.getPixelForValue(iv[1]));
          ctx.lineTo(pt.x + 4, y.getPixelForValue(iv[1]));
          ctx.stroke();
          ctx.restore();
        });
      });
    },
  };

  function box(parent, id) {
    const div = document.createElement('div');
    div.className = 'chart';
    const canvas = document.createElement('canvas');
    canvas.id = id;
    div.appendChild(canvas);
    parent.appendChild(div);
    return canvas;
  }

  /** Which runs a success rate counts, in words (the tooltip and the tables say the same). */
  const counted = (r) =>
    `over ${plural(r.independent, 'independent run')}; ` +
    `${plural(r.errors ?? 0, 'error')} and ${r.running ?? 0} running left out`;

  for (const g of generators) {
    const canvas = box(document.getElementById('success-charts'), `success-${g}`);
    charts.push(
      new Chart(canvas, {
        type: 'line',
        data: {
          labels: sizes.map(String),
          datasets: series.map((name) => {
            const rows = sizes.map((size) =>
              D.stats.find((s) => seriesOf(s) === name && s.maze_generator === g && s.maze_size === size),
            );
            return {
              label: name,
              borderColor: colour(name),
              backgroundColor: colour(name),
              pointRadius: 4,
              data: rows.map((r) => (r ? r.success.rate : null)),
              intervals: rows.map((r) => (r ? [r.success.maze.low, r.success.maze.high] : null)),
              rows,
            };
          }),
        },
        options: {
          maintainAspectRatio: false,
          plugins: {
            title: { display: true, text: `${g}: success rate (maze-level 95%, over independent runs)` },
            tooltip: {
              callbacks: {
                label: (c) => {
                  const r = c.dataset.rows[c.dataIndex];
                  return (
                    `${c.dataset.label}: ${StatFormat.formatRate(r.success.rate)} ` +
                    `(${StatFormat.formatInterval(r.success.maze.low, r.success.maze.high)}, ${r.mazes} mazes) ` +
                    counted(r)
                  );
                },
              },
            },
          },
          scales: {
            y: { min: 0, max: 1, title: axis('success rate') },
            x: { title: axis('maze size') },
          },
        },
        plugins: [intervals],
      }),
    );
  }

  // a successful run's point: one per distinct trajectory of a series and size (copies and identical repeats walk
  // the same path to the same efficiency), with how many runs it stands for
  const successes = D.runs.filter((r) => r.outcome_class === 'success' && r.efficiency !== null);
  for (const g of generators) {
    const canvas = box(document.getElementById('efficiency-charts'), `efficiency-${g}`);
    charts.push(
      new Chart(canvas, {
        type: 'scatter',
        data: {
          datasets: series.map((name, si) => {
            const byPath = new Map();
            for (const r of successes) {
              if (r.maze_generator !== g || seriesOf(r) !== name) continue;
              const key = `${r.maze_size}|${r.trajectory_hash ?? r.experiment_id}`;
              const p = byPath.get(key) ?? { size: r.maze_size, y: r.efficiency, count: 0, seed: r.maze_seed };
              p.count += 1;
              byPath.set(key, p);
            }
            // each series spreads a little around its size, so the points do not hide each other
            const data = [...byPath.values()].map((p, k) => ({
              x: sizes.indexOf(p.size) + (si - (series.length - 1) / 2) * 0.18 + ((k % 5) - 2) * 0.02,
              y: p.y,
              count: p.count,
              seed: p.seed,
            }));
            return {
              label: name,
              backgroundColor: colour(name),
              data,
              pointRadius: data.map((p) => 3 + 2 * Math.sqrt(p.count - 1)),
            };
          }),
        },
        options: {
          maintainAspectRatio: false,
          plugins: {
            title: { display: true, text: `${g}: efficiency of successful runs (a path walked n times: one dot)` },
            tooltip: {
              callbacks: {
                label: (c) => {
                  const p = c.raw;
                  return (
                    `${c.dataset.label}: efficiency ${StatFormat.formatNumber(p.y, 3)}, maze seed ${p.seed}` +
                    (p.count > 1 ? `; ${p.count} runs walked this path` : '')
                  );
                },
              },
            },
          },
          scales: {
            x: {
              type: 'linear',
              min: -0.5,
              max: sizes.length - 0.5,
              // a tick at each size's position (the scale's own would fall on -0.5, 0.5, ...: no label at all)
              afterBuildTicks: (scale) => {
                scale.ticks = sizes.map((_, i) => ({ value: i }));
              },
              ticks: { callback: (v) => String(sizes[v] ?? '') },
              title: axis('maze size'),
            },
            y: { min: 0, max: 1, title: axis('efficiency (optimal moves / actions)') },
          },
        },
      }),
    );
  }

  // tokens per success over independent runs (copies would count one observation's tokens again)
  const perSeries = series.map((name) => {
    const runs = D.runs.filter((r) => r.independent && seriesOf(r) === name);
    const wins = runs.filter((r) => r.goal_found).length;
    return wins === 0 ? null : runs.reduce((n, r) => n + r.tokens, 0) / wins;
  });
  charts.push(
    new Chart(document.getElementById('tokens-chart'), {
      type: 'bar',
      data: {
        labels: series,
        datasets: [{ label: 'tokens per success', data: perSeries, backgroundColor: series.map(colour) }],
      },
      options: {
        maintainAspectRatio: false,
        plugins: { title: { display: true, text: 'tokens per success, over independent runs (baselines use none)' } },
        scales: {
          x: { title: axis('agent and settings') },
          y: { beginAtZero: true, title: axis('tokens per success') },
        },
      },
    }),
  );

  window.__report = {
    charts: charts.map((c) => ({
      id: c.canvas.id,
      type: c.config.type,
      axes: { x: c.scales.x.options.title.text, y: c.scales.y.options.title.text },
      xTicks: c.scales.x.ticks.map((t) => (t.label === undefined ? '' : String(t.label))),
      datasets: c.data.datasets.map((d) => ({
        label: d.label,
        points: d.data.length,
        counts: d.data.map((p) => (p && typeof p === 'object' ? p.count : 1)),
      })),
    })),
  };
})();
