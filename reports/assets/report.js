// Charts of the sweep report (Chart.js): success rate vs maze size per agent
// with Wilson 95% interval bars, efficiency of successful runs, tokens per
// success. Each chart is registered in window.__report for tests.
/* global Chart -- Chart.js (UMD build) is inlined before this script by report-page.ts */
(() => {
  'use strict';
  const D = JSON.parse(document.getElementById('data').textContent);
  const PALETTE = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#4b5563', '#ca8a04'];
  const labels = [...new Set(D.stats.map((s) => s.label))];
  const colour = (label) => PALETTE[labels.indexOf(label) % PALETTE.length];
  const generators = [...new Set(D.stats.map((s) => s.maze_generator))];
  const sizes = [...new Set(D.stats.map((s) => s.maze_size))].sort((a, b) => a - b);
  const charts = [];
  Chart.defaults.animation = false;

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

  for (const g of generators) {
    const canvas = box(document.getElementById('success-charts'), `success-${g}`);
    charts.push(
      new Chart(canvas, {
        type: 'line',
        data: {
          labels: sizes.map(String),
          datasets: labels.map((label) => {
            const rows = sizes.map((size) =>
              D.stats.find((s) => s.label === label && s.maze_generator === g && s.maze_size === size),
            );
            return {
              label,
              borderColor: colour(label),
              backgroundColor: colour(label),
              pointRadius: 4,
              data: rows.map((r) => (r ? r.success_rate : null)),
              intervals: rows.map((r) => (r ? [r.success_low95, r.success_high95] : null)),
            };
          }),
        },
        options: {
          maintainAspectRatio: false,
          plugins: {
            title: { display: true, text: `${g}: success rate (Wilson 95%; deterministic repeats count once)` },
          },
          scales: {
            y: { min: 0, max: 1, title: { display: true, text: 'success rate' } },
            x: { title: { display: true, text: 'maze size' } },
          },
        },
        plugins: [intervals],
      }),
    );
  }

  for (const g of generators) {
    const canvas = box(document.getElementById('efficiency-charts'), `efficiency-${g}`);
    charts.push(
      new Chart(canvas, {
        type: 'scatter',
        data: {
          datasets: labels.map((label, li) => ({
            label,
            backgroundColor: colour(label),
            pointRadius: 3,
            // each agent's runs spread a little around its size, so the points do not hide each other
            data: D.runs
              .filter((r) => r.label === label && r.maze_generator === g && r.goal_found && r.efficiency !== null)
              .map((r, k) => ({
                x: sizes.indexOf(r.maze_size) + (li - (labels.length - 1) / 2) * 0.18 + ((k % 5) - 2) * 0.02,
                y: r.efficiency,
              })),
          })),
        },
        options: {
          maintainAspectRatio: false,
          plugins: { title: { display: true, text: `${g}: efficiency of successful runs` } },
          scales: {
            x: {
              min: -0.5,
              max: sizes.length - 0.5,
              ticks: { stepSize: 1, callback: (v) => (Number.isInteger(v) ? sizes[v] : '') },
              title: { display: true, text: 'maze size' },
            },
            y: { min: 0, max: 1, title: { display: true, text: 'optimal / actions' } },
          },
        },
      }),
    );
  }

  const perLabel = labels.map((label) => {
    const runs = D.runs.filter((r) => r.label === label);
    const wins = runs.filter((r) => r.goal_found).length;
    return wins === 0 ? null : runs.reduce((n, r) => n + r.tokens, 0) / wins;
  });
  charts.push(
    new Chart(document.getElementById('tokens-chart'), {
      type: 'bar',
      data: {
        labels,
        datasets: [{ label: 'tokens per success', data: perLabel, backgroundColor: labels.map(colour) }],
      },
      options: {
        maintainAspectRatio: false,
        plugins: { title: { display: true, text: 'tokens per success (baselines use none)' } },
      },
    }),
  );

  window.__report = {
    charts: charts.map((c) => ({
      id: c.canvas.id,
      type: c.config.type,
      datasets: c.data.datasets.map((d) => ({ label: d.label, points: d.data.length })),
    })),
  };
})();
