// ktune report page: draws the summaries in #ktune-data (or, live, in data.json) as SVG. No library, no network.
"use strict";
(function() {
const NS = "http://www.w3.org/2000/svg";
const errors = [];
function noteError(text) {
  errors.push(String(text));
  const box = document.getElementById("ktune-errors");
  if (box) {
    box.textContent = errors.join("\n");
    box.dataset.count = String(errors.length);
  }
}
window.addEventListener("error", (e) => noteError(e.message || e));
window.addEventListener("unhandledrejection", (e) => noteError(e.reason));

function el(tag, attrs, parent, text) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
function sv(tag, attrs, parent, text) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
function num(x, digits) {
  if (x === null || x === undefined || !isFinite(x)) return "–";
  const a = Math.abs(x);
  if (a !== 0 && (a >= 1e6 || a < 1e-3)) return x.toExponential((digits || 4) - 1);
  return String(Number(x.toPrecision(digits || 4)));
}
function withUnit(x, unit) {
  return num(x) + (unit ? " " + unit : "");
}
function label(axis) {
  return axis.name + (axis.unit ? " (" + axis.unit + ")" : "");
}
function valueText(v) {
  return typeof v === "string" ? v : JSON.stringify(v);
}
const COLORS =
    ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"];

// Scales and ticks.
function scale(lo, hi, a, b, log) {
  if (log) {
    lo = Math.log10(lo);
    hi = Math.log10(hi);
  }
  if (!(hi > lo)) {
    const m = lo;
    lo = m - (log ? 0.5 : Math.abs(m) * 0.05 + 0.5);
    hi = m + (log ? 0.5 : Math.abs(m) * 0.05 + 0.5);
  }
  const f = (x) => a + ((log ? Math.log10(x) : x) - lo) / (hi - lo) * (b - a);
  f.ticks = function() {
    const out = [];
    if (log) {
      for (let e = Math.floor(lo); e <= Math.ceil(hi); ++e)
        for (const m of [1, 2, 5]) {
          const t = m * Math.pow(10, e);
          if (Math.log10(t) >= lo - 1e-9 && Math.log10(t) <= hi + 1e-9) out.push(t);
        }
      return out.length > 9 ? out.filter((t) => Math.abs(Math.log10(t) % 1) < 1e-9) : out;
    }
    const span = hi - lo, raw = span / 5, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => span / s <= 6);
    for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step)
      out.push(Math.abs(t) < step * 1e-9 ? 0 : t);
    return out;
  };
  f.lo = lo;
  f.hi = hi;
  f.log = log;
  return f;
}
function extent(values, log) {
  const v = values.filter((x) => x !== null && isFinite(x) && (!log || x > 0));
  if (!v.length) return [log ? 1 : 0, log ? 10 : 1];
  return [Math.min(...v), Math.max(...v)];
}
function spansDecades(values) {
  const [lo, hi] = extent(values, true);
  return values.every((x) => x === null || x > 0) && hi >= 100 * lo;
}

// A chart frame: axes with ticks and labels; returns the scales and the plot group.
function frame(parent, o) {
  const W = o.width || 460, L = 64, R = 12, T = 24;
  // Category labels longer than their slot are written slanted, with room below for them.
  const longest = o.categories ? Math.max(0, ...o.categories.map((c) => String(c).length)) : 0;
  const slanted = o.categories && longest * 6 > (W - L - R) / o.categories.length;
  const B = slanted ? 30 + Math.min(longest, 18) * 4.2 : 44, H = (o.height || 260) + (slanted ? B - 44 : 0);
  const svg =
      sv("svg", {class: "chart", viewBox: "0 0 " + W + " " + H, width: W, height: H, "data-chart": o.id, role: "img"},
         parent);
  sv("title", {}, svg, o.title);
  sv("text", {x: L, y: 15, class: "chart-title"}, svg, o.title);
  const x = o.categories ? null : scale(o.x[0], o.x[1], L, W - R, o.xlog);
  const y = scale(o.y[0], o.y[1], H - B, T, o.ylog);
  const g = sv("g", {}, svg);
  sv("line", {x1: L, y1: H - B, x2: W - R, y2: H - B, class: "axis"}, g);
  sv("line", {x1: L, y1: T, x2: L, y2: H - B, class: "axis"}, g);
  for (const t of y.ticks()) {
    sv("line", {x1: L - 4, y1: y(t), x2: W - R, y2: y(t), class: "grid"}, g);
    sv("text", {x: L - 6, y: y(t) + 4, class: "tick", "text-anchor": "end"}, g, num(t, 3));
  }
  let xc = x;
  if (o.categories) {
    const n = o.categories.length, step = (W - R - L) / n;
    xc = (i) => L + step * (i + 0.5);
    xc.step = step;
    const every = Math.max(1, Math.ceil(n / Math.floor((W - L - R) / 34)));
    o.categories.forEach((c, i) => {
      if (i % every !== 0) return;
      const text = String(c).length > 18 ? String(c).slice(0, 17) + "…" : String(c);
      if (slanted)
        sv("text", {
          x: xc(i),
          y: H - B + 12,
          class: "tick",
          "text-anchor": "end",
          transform: "rotate(-35 " + xc(i) + " " + (H - B + 12) + ")"
        },
           g, text);
      else
        sv("text", {x: xc(i), y: H - B + 15, class: "tick", "text-anchor": "middle"}, g, text);
    });
  } else {
    for (const t of x.ticks()) {
      sv("line", {x1: x(t), y1: H - B, x2: x(t), y2: H - B + 4, class: "axis"}, g);
      sv("text", {x: x(t), y: H - B + 15, class: "tick", "text-anchor": "middle"}, g, num(t, 3));
    }
  }
  sv("text", {x: (L + W - R) / 2, y: H - 6, class: "axis-label", "text-anchor": "middle"}, g, o.xlabel);
  sv("text", {
    x: 12,
    y: (T + H - B) / 2,
    class: "axis-label",
    "text-anchor": "middle",
    transform: "rotate(-90 12 " + (T + H - B) / 2 + ")"
  },
     g, o.ylabel);
  return {svg: svg, g: g, x: xc, y: y, W: W, H: H, L: L, R: R, T: T, B: B};
}

function legend(f, names) {
  names.forEach((n, i) => {
    const y = f.T + 4 + 14 * i;
    sv("rect", {x: f.W - f.R - 150, y: y, width: 10, height: 10, fill: COLORS[i % COLORS.length]}, f.g);
    sv("text", {x: f.W - f.R - 136, y: y + 9, class: "tick"}, f.g, n.length > 22 ? n.slice(0, 21) + "…" : n);
  });
}

// Step lines: series [{name, x: [], y: []}], the best so far (held until the next point).
function stepChart(parent, o, series) {
  const xs = [].concat(...series.map((s) => s.x)), ys = [].concat(...series.map((s) => s.y));
  const xlog = o.xlog === undefined ? false : o.xlog, ylog = o.ylog === undefined ? spansDecades(ys) : o.ylog;
  const f = frame(parent, Object.assign({x: extent(xs, xlog), y: extent(ys, ylog), xlog: xlog, ylog: ylog}, o));
  series.forEach((s, i) => {
    let d = "";
    for (let k = 0; k < s.x.length; ++k) {
      if (s.x[k] === null || s.y[k] === null) continue;
      const px = f.x(s.x[k]).toFixed(1), py = f.y(s.y[k]).toFixed(1);
      d += d === "" ? "M" + px + "," + py : (o.step ? "H" + px + "V" + py : "L" + px + "," + py);
    }
    sv("path", {d: d, class: "series", stroke: COLORS[i % COLORS.length], "data-series": s.name}, f.g);
  });
  if (series.length > 1) legend(f, series.map((s) => s.name));
  return f;
}

function histogramChart(parent, h, axis) {
  const counts = h.counts, edges = h.edges;
  const f = frame(parent, {
    id: "distribution",
    title: "Distribution of " + axis.name,
    x: [edges[0], edges[edges.length - 1]],
    y: [0, Math.max(...counts)],
    xlog: h.log,
    ylog: false,
    xlabel: label(axis) + (h.log ? ", log scale" : ""),
    ylabel: "configurations"
  });
  counts.forEach((c, b) => {
    const x0 = f.x(edges[b]), x1 = f.x(edges[b + 1]);
    sv("rect", {
      x: Math.min(x0, x1),
      y: f.y(c),
      width: Math.max(1, Math.abs(x1 - x0) - 1),
      height: f.y(0) - f.y(c),
      class: "bar",
      "data-count": c
    },
       f.g);
  });
}

function importanceChart(parent, ranking) {
  const f = frame(parent, {
    id: "importance",
    title: "Parameter importance (variance explained alone)",
    categories: ranking.map((r) => r.name),
    y: [0, Math.max(0.01, ...ranking.map((r) => r.share))],
    ylog: false,
    xlabel: "parameter",
    ylabel: "share of variance"
  });
  ranking.forEach((r, i) => {
    sv("rect", {
      x: f.x(i) - f.x.step * 0.35,
      y: f.y(r.share),
      width: f.x.step * 0.7,
      height: f.y(0) - f.y(r.share),
      class: "bar",
      "data-parameter": r.name,
      "data-share": r.share
    },
       f.g);
  });
}

// One parameter: the objective's quartiles per value (box), its range (whisker), its best (dot); the failed share
// as a red band under the axis.
function marginalChart(parent, p, axis, log) {
  const labels = p.values.map(valueText);
  const vals = [];
  p.stats.forEach((s) => {
    if (s) vals.push(s.min, s.max);
  });
  const f = frame(parent, {
    id: "marginal-" + p.name,
    title: p.name + " (importance " + num(p.importance, 2) + ")",
    categories: labels,
    y: extent(vals, log),
    ylog: log,
    xlabel: p.name,
    ylabel: label(axis),
    width: 300,
    height: 220
  });
  p.stats.forEach((s, i) => {
    const cx = f.x(i), w = Math.min(26, f.x.step * 0.6);
    if (s) {
      sv("line", {x1: cx, x2: cx, y1: f.y(s.min), y2: f.y(s.max), class: "whisker"}, f.g);
      sv("rect", {
        x: cx - w / 2,
        y: f.y(log ? s.q3 : Math.max(s.q1, s.q3)),
        width: w,
        height: Math.max(1, Math.abs(f.y(s.q1) - f.y(s.q3))),
        class: "box"
      },
         f.g);
      sv("line", {x1: cx - w / 2, x2: cx + w / 2, y1: f.y(s.median), y2: f.y(s.median), class: "median"}, f.g);
      sv("circle", {cx: cx, cy: f.y(s.best), r: 2.5, class: "best-dot"}, f.g);
    }
    if (p.measured[i] > 0 && p.failed[i] > 0) {
      const share = p.failed[i] / p.measured[i];
      sv("rect", {
        x: cx - w / 2,
        y: f.H - f.B + 19,
        width: w,
        height: 5,
        class: "failed-band",
        "fill-opacity": 0.15 + 0.85 * share,
        "data-failed": p.failed[i]
      },
         f.g);
    }
  });
}

function paretoChart(parent, p) {
  const xs = p.points.map((q) => q[0]).concat(p.front.map((q) => q[0])),
        ys = p.points.map((q) => q[1]).concat(p.front.map((q) => q[1]));
  const xlog = spansDecades(xs), ylog = spansDecades(ys);
  const f = frame(parent, {
    id: "pareto",
    title: "Pareto front: " + p.x.name + " against " + p.y.name,
    x: extent(xs, xlog),
    y: extent(ys, ylog),
    xlog: xlog,
    ylog: ylog,
    xlabel: label(p.x) + (p.x.higher_is_better ? ", higher is better" : ""),
    ylabel: label(p.y) + (p.y.higher_is_better ? ", higher is better" : "")
  });
  for (const q of p.points) sv("circle", {cx: f.x(q[0]), cy: f.y(q[1]), r: 1.6, class: "cloud"}, f.g);
  let d = "";
  for (const q of p.front) d += (d ? "L" : "M") + f.x(q[0]).toFixed(1) + "," + f.y(q[1]).toFixed(1);
  sv("path", {d: d, class: "front-line"}, f.g);
  for (const q of p.front) {
    const c = sv("circle", {cx: f.x(q[0]), cy: f.y(q[1]), r: 3.5, class: "front", "data-x": q[0], "data-y": q[1]}, f.g);
    sv("title", {}, c, "evaluation " + q[2] + ": " + withUnit(q[0], p.x.unit) + ", " + withUnit(q[1], p.y.unit));
  }
  f.svg.dataset.count = String(p.front.length);
}

function table(parent, cls, head, rows) {
  const t = el("table", {class: cls}, parent);
  const tr = el("tr", {}, el("thead", {}, t));
  for (const h of head) el("th", {}, tr, h);
  const body = el("tbody", {}, t);
  for (const r of rows) {
    const row = el("tr", r.attrs || {}, body);
    for (const c of r.cells) {
      const td = el("td", c.attrs || {}, row, c.text);
      if (c.num) td.classList.add("num");
    }
  }
  return t;
}

// The views of a run, each a function that fills one cell.
const runViews = [
  [
    "Summary",
    (cell, r) => {
      const main = r.objectives[0];
      const dl = el("dl", {class: "facts"}, cell);
      const fact = (k, v, cls, value) => {
        el("dt", {}, dl, k);
        const dd = el("dd", {class: cls || ""}, dl, v);
        if (value !== undefined) dd.dataset.value = String(value);
      };
      fact("source", r.source + " (" + r.format + ")");
      if (r.kernel) fact("kernel", r.kernel);
      if (r.device) fact("device", r.device);
      if (r.problem_size !== null) fact("problem size", valueText(r.problem_size));
      fact("evaluations", String(r.records), "evaluations", r.records);
      const failed = r.records - (r.by_status.ok || 0);
      fact(
          "failed", String(failed) + (r.records ? " (" + num(100 * failed / r.records, 3) + " %)" : ""),
          "failures-count", failed);
      if (r.seconds !== null) fact("tuning time", withUnit(r.seconds, "s"), "tuning-seconds", r.seconds);
      if (r.best) {
        fact("best " + main.name, withUnit(r.best.value, main.unit), "best-value", r.best.value);
        fact(
            "found at",
            "evaluation " + r.best.evaluation + (r.best.seconds !== null ? ", " + withUnit(r.best.seconds, "s") : ""),
            "best-evaluation", r.best.evaluation);
        fact(
            "best configuration", Object.entries(r.best.config).map(([k, v]) => k + "=" + valueText(v)).join(", "),
            "best-config");
      } else {
        fact("best " + main.name, "no successful evaluation", "best-value");
      }
    }
  ],
  [
    "Best value over the run",
    (cell, r) => {
      const main = r.objectives[0];
      if (!r.progress.best.length) {
        el("p", {}, cell, "No successful evaluation.");
        return;
      }
      const ylab = "best " + label(main);
      stepChart(
          cell, {
            id: "progress-evaluations",
            title: "Best " + main.name + " against evaluations",
            xlabel: "evaluations",
            ylabel: ylab,
            step: true
          },
          [{name: r.name, x: r.progress.evaluation, y: r.progress.best}]);
      if (r.seconds !== null)
        stepChart(
            cell, {
              id: "progress-time",
              title: "Best " + main.name + " against tuning time",
              xlabel: "tuning time (s)",
              ylabel: ylab,
              step: true
            },
            [{name: r.name, x: r.progress.seconds, y: r.progress.best}]);
    }
  ],
  [
    "Distribution",
    (cell, r) => {
      if (!r.distribution) {
        el("p", {}, cell, "No successful evaluation.");
        return;
      }
      histogramChart(cell, r.distribution, r.objectives[0]);
    }
  ],
  [
    "Parameters",
    (cell, r) => {
      if (!r.importance.length) return;
      importanceChart(cell, r.importance);
      const byName = {};
      for (const p of r.parameters) byName[p.name] = p;
      const box = el("div", {class: "marginals"}, cell);
      for (const imp of r.importance) marginalChart(box, byName[imp.name], r.objectives[0], r.log_scale);
      el("p", {class: "note"}, cell,
         "Boxes: quartiles of " + r.objectives[0].name +
             " per value; whiskers: its range; dot: the best; red band: the share of that value's evaluations that failed.");
    }
  ],
  [
    "Best configurations",
    (cell, r) => {
      const names = r.parameters.map((p) => p.name);
      const interval = r.top.some((t) => t.time_ci_low !== undefined);
      const head = ["#", "evaluation"].concat(
          names, r.objectives.map(label), interval ? ["time 95 % interval (ms)", "runs"] : ["runs"]);
      const rows = r.top.map(
          (t, i) => ({
            attrs: {"data-evaluation": t.evaluation},
            cells: [{text: String(i + 1), num: true}, {text: String(t.evaluation), num: true}].concat(
                names.map((n) => ({text: valueText(t.config[n])})),
                t.values.map(
                    (v, k) => ({
                      text: num(v, 5),
                      num: true,
                      attrs: {class: "objective", "data-objective": r.objectives[k].name, "data-value": String(v)}
                    })),
                interval ?
                    [{text: t.time_ci_low !== undefined ? num(t.time_ci_low) + " – " + num(t.time_ci_high) : "–"}] :
                    [],
                [{text: String(t.runs), num: true}])
          }));
      table(cell, "top", head, rows);
    }
  ],
  [
    "Failures",
    (cell, r) => {
      if (!r.failures.length) {
        el("p", {class: "no-failures"}, cell, "No evaluation failed.");
        return;
      }
      const rows = [];
      for (const f of r.failures)
        for (const [k, m] of f.messages.entries())
          rows.push({
            attrs: {"data-status": f.status},
            cells: [
              {text: k === 0 ? f.status : ""}, {
                text: k === 0 ? String(f.count) : "",
                num: true,
                attrs: k === 0 ? {class: "failure-count", "data-value": String(f.count)} : {}
              },
              {text: String(m.count), num: true}, {text: m.message || "(no message)"}
            ]
          });
      table(cell, "failures", ["status", "evaluations", "with this message", "message"], rows);
      // Where they lie: the parameters whose values fail most unevenly.
      const spread = r.parameters
                         .map((p) => {
                           const shares = p.measured.map((m, i) => (m ? p.failed[i] / m : 0));
                           return {p: p, shares: shares, range: Math.max(...shares) - Math.min(...shares)};
                         })
                         .filter((s) => s.range > 0)
                         .sort((a, b) => b.range - a.range)
                         .slice(0, 4);
      const box = el("div", {class: "marginals"}, cell);
      for (const s of spread) {
        const f = frame(box, {
          id: "failures-" + s.p.name,
          title: "Failed share by " + s.p.name,
          categories: s.p.values.map(valueText),
          y: [0, 1],
          ylog: false,
          xlabel: s.p.name,
          ylabel: "failed share",
          width: 300,
          height: 200
        });
        s.shares.forEach(
            (v, i) =>
                sv("rect", {
                  x: f.x(i) - f.x.step * 0.35,
                  y: f.y(v),
                  width: f.x.step * 0.7,
                  height: f.y(0) - f.y(v),
                  class: "failed-bar",
                  "data-share": v
                },
                   f.g));
      }
    }
  ],
  [
    "Pareto front",
    (cell, r) => {
      if (!r.pareto) return false;
      paretoChart(cell, r.pareto);
      const rows = r.pareto.front.map(
          (q) => ({
            cells: [{text: String(q[2]), num: true}, {text: num(q[0], 5), num: true}, {text: num(q[1], 5), num: true}]
          }));
      table(cell, "front", ["evaluation", label(r.pareto.x), label(r.pareto.y)], rows);
    }
  ],
];

function drawComparison(root, c) {
  const sec = el("section", {class: "comparison"}, root);
  el("h2", {}, sec, c.name);
  el("p", {class: "meta"}, sec, c.source + ": " + c.spaces.length + " spaces, " + c.strategies.length + " strategies");
  const rows =
      c.aggregate.map((a) => ({
                        attrs: {"data-strategy": a.strategy},
                        cells: [
                          {text: a.strategy},
                          {text: num(a.score, 4), num: true, attrs: {class: "score", "data-value": String(a.score)}},
                          {text: num(a.error, 3), num: true}
                        ]
                      }));
  table(sec, "scores", ["strategy", "score", "error"], rows);
  const n = c.aggregate.length ? c.aggregate[0].performance.length : 0;
  const xs = Array.from({length: n}, (_, i) => (n > 1 ? i / (n - 1) : 0));
  stepChart(
      sec, {
        id: "aggregate-performance",
        title: "Performance over the time range, all spaces",
        xlabel: "fraction of the time range",
        ylabel: "performance (1: optimum, 0: random)",
        width: 620,
        height: 300,
        ylog: false
      },
      c.aggregate.map((a) => ({name: a.strategy, x: xs, y: a.performance})));
  const grid = el("div", {class: "marginals"}, sec);
  for (const s of c.spaces) {
    const series = c.strategies.filter((k) => s.performance[k])
                       .map((k) => ({name: k + " " + num(s.scores[k], 3), x: s.time_points, y: s.performance[k]}));
    if (series.length)
      stepChart(
          grid, {
            id: "space-" + s.name,
            title: s.name,
            xlabel: "tuning time (s)",
            ylabel: "performance",
            width: 360,
            height: 240,
            ylog: false
          },
          series);
  }
}

function draw(data) {
  const root = document.getElementById("ktune-report");
  root.textContent = "";
  document.title = data.title || "ktune report";
  const header = el("header", {}, root);
  el("h1", {}, header, data.title || "ktune report");
  el("p", {class: "meta"}, header,
     "ktune " + (data.ktune_version || "") + (data.generated ? ", " + data.generated : ""));
  const runs = data.items.filter((i) => i.kind === "run");
  for (const c of data.items.filter((i) => i.kind === "comparison")) drawComparison(root, c);
  if (!runs.length) return;
  if (runs.length > 1) {
    const sec = el("section", {class: "view", "data-view": "overlay"}, root);
    el("h2", {}, sec, "Best value, all runs");
    const main = runs[0].objectives[0];
    stepChart(
        sec, {
          id: "overlay-evaluations",
          title: "Best " + main.name + " against evaluations",
          xlabel: "evaluations",
          ylabel: "best " + label(main),
          step: true,
          width: 620,
          height: 300
        },
        runs.filter((r) => r.progress.best.length)
            .map((r) => ({name: r.name, x: r.progress.evaluation, y: r.progress.best})));
  }
  for (const [title, view] of runViews) {
    const sec = el("section", {class: "view", "data-view": title}, root);
    el("h2", {}, sec, title);
    const row = el("div", {class: "row"}, sec);
    row.style.gridTemplateColumns = "repeat(" + runs.length + ", minmax(0, 1fr))";
    let shown = false;
    runs.forEach((r, i) => {
      const cell = el("div", {class: "run cell", "data-run": String(i)}, row);
      if (runs.length > 1) el("h3", {}, cell, r.name);
      shown = view(cell, r) !== false || shown;
    });
    if (!shown) sec.remove();
  }
}

const embedded = JSON.parse(document.getElementById("ktune-data").textContent);
let version = embedded.version;
draw(embedded);
const live = window.KTUNE_LIVE;
if (live) {
  const status = document.getElementById("live-status");
  const poll = () => fetch("data.json", {cache: "no-store"})
                         .then((r) => r.json())
                         .then((d) => {
                           if (d.version !== version) {
                             version = d.version;
                             draw(d);
                           }
                           const records = d.items.reduce((s, i) => s + (i.records || 0), 0);
                           status.textContent =
                               "live: " + records + " results, checked " + new Date().toLocaleTimeString();
                           status.dataset.records = String(records);
                           status.dataset.version = String(d.version);
                         })
                         .catch((e) => {
                           status.textContent = "live: the tuning run is not answering (" + e + ")";
                         })
                         .finally(() => setTimeout(poll, live.poll_ms));
  setTimeout(poll, live.poll_ms);
}
})();
