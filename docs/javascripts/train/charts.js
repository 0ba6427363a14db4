// The Train widget's two charts, drawn by uPlot (from npm, served by the site under vendor/uplot/ and
// fetched on the first Start). Every colour is a CSS variable of the widget (stylesheets/train.css,
// one set per colour scheme), read at each draw, so switching light/dark redraws them in the new set.
import { SITE_ROOT } from "../run/root.js";

/** @typedef {import("uplot")} UPlot  @typedef {typeof import("uplot")} UPlotClass  @typedef {import("uplot").Axis} Axis */

/** @type {Promise<UPlotClass> | null} */
let uPlotLoaded = null;

/** uPlot and its stylesheet, fetched once. */
export function loadUPlot() {
  uPlotLoaded ??= (() => {
    const css = Object.assign(document.createElement("link"), { rel: "stylesheet" });
    css.href = new URL("vendor/uplot/uPlot.min.css", SITE_ROOT).href;
    document.head.append(css);
    return import(new URL("vendor/uplot/uPlot.esm.js", SITE_ROOT).href).then((m) => m.default);
  })();
  return uPlotLoaded;
}

/** A matrix's kind and layer: "layer1.attn_wq" -> ["attn_wq", 1]; "wte" -> ["wte", null]. */
/** @param {string} name  @returns {[string, number | null]} */
export function kindAndLayer(name) {
  const m = name.match(/^layer(\d+)\.(.+)$/);
  return m ? [m[2], Number(m[1])] : [name, null];
}
export const DASHES = [[], [6, 3], [1.5, 3]]; // layer 0, 1, 2: solid, dashed, dotted
const FONT = "12px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";

const isPowerOf10 = (/** @type {number} */ v) => v > 0 && Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9;
/** A log axis with its labels, ticks and grid lines at the powers of ten only. */
const decades = (/** @type {Axis} */ axis) => {
  const filter = (/** @type {UPlot} */ _u, /** @type {number[]} */ splits) =>
    splits.map((v) => (isPowerOf10(v) ? v : null));
  return { ...axis, size: 54, filter, grid: { ...axis.grid, filter }, ticks: { ...axis.ticks, filter } };
};
const colour = (/** @type {Element} */ el, /** @type {string} */ name) => () =>
  getComputedStyle(el).getPropertyValue(name).trim();

/** @param {Element} el  @param {string} yLabel  @param {Axis["values"]} [yValues]  @returns {Axis[]} */
function axes(el, yLabel, yValues) {
  const common = {
    stroke: colour(el, "--mg-train-text"),
    grid: { stroke: colour(el, "--mg-train-grid"), width: 1 },
    ticks: { stroke: colour(el, "--mg-train-grid"), width: 1 },
    font: FONT,
    labelFont: FONT,
  };
  return [
    { ...common, label: "step", labelSize: 18 },
    { ...common, label: yLabel, labelSize: 18, size: 44, ...(yValues ? { values: yValues } : {}) },
  ];
}

/**
 * @param {UPlotClass} uPlot  @param {HTMLElement} target  @param {number} nSeries
 * @param {{ steps: number, axes: Axis[], series: import("uplot").Series[], height?: number, scales?: import("uplot").Scales, hooks?: import("uplot").Hooks.Arrays }} opts
 */
function chart(uPlot, target, opts, nSeries) {
  const width = () => Math.max(200, target.clientWidth);
  const u = new uPlot(
    {
      width: width(),
      height: opts.height ?? 220,
      legend: { show: false },
      cursor: { show: false },
      scales: { x: { time: false, range: [0, opts.steps] }, ...(opts.scales ?? {}) },
      axes: opts.axes,
      series: [{}, ...opts.series],
      hooks: opts.hooks ?? {},
    },
    /** @type {import("uplot").AlignedData} */ (/** @type {unknown} */ (Array.from({ length: nSeries + 1 }, () => []))),
    target,
  );
  new ResizeObserver(() => width() !== u.width && u.setSize({ width: width(), height: u.height })).observe(target);
  return u;
}

/** A dashed horizontal line at y = level(), across the whole plot, drawn after the series. */
/** @param {Element} el  @param {() => number} level */
function levelLine(el, level) {
  return (/** @type {UPlot} */ u) => {
    const y = u.valToPos(level(), "y", true);
    const { ctx, bbox } = u;
    ctx.save();
    ctx.strokeStyle = colour(el, "--mg-train-uniform")();
    ctx.lineWidth = 1.5 * devicePixelRatio;
    ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
    ctx.beginPath();
    ctx.moveTo(bbox.left, y);
    ctx.lineTo(bbox.left + bbox.width, y);
    ctx.stroke();
    ctx.restore();
  };
}

/** Loss against step: each step's loss (faint), its running mean, the held-out loss, and ln V (dashed). */
/** @param {UPlotClass} uPlot  @param {Element} el  @param {HTMLElement} target  @param {number} steps  @param {number} uniform */
export function lossChart(uPlot, el, target, steps, uniform) {
  const line = (/** @type {string} */ name, /** @type {number} */ width, more = {}) => ({
    stroke: colour(el, name),
    width,
    points: { show: false },
    ...more,
  });
  return chart(
    uPlot,
    target,
    {
      steps,
      axes: axes(el, "loss"),
      series: [
        line("--mg-train-step", 1),
        line("--mg-train-mean", 2.5),
        line("--mg-train-held", 2.5, {
          spanGaps: true,
          points: { show: true, size: 7, stroke: colour(el, "--mg-train-held"), fill: colour(el, "--mg-train-held") },
        }),
        line("--mg-train-uniform", 1, { stroke: "transparent" }), // ln V, unseen: the y range includes it
      ],
      hooks: { draw: [levelLine(el, () => uniform)] },
    },
    4,
  );
}

/** The gradient norm of each named matrix against step, on a log scale: colour by kind, dash by layer. */
/** @param {UPlotClass} uPlot  @param {Element} el  @param {HTMLElement} target  @param {string[]} names  @param {number} steps */
export function gradChart(uPlot, el, target, names, steps) {
  return chart(
    uPlot,
    target,
    {
      steps,
      height: 240,
      scales: { y: { distr: 3 } },
      axes: axes(el, "gradient norm", (/** @type {UPlot} */ _u, /** @type {number[]} */ ticks) =>
        ticks.map((t) => (t == null ? "" : t >= 1 ? String(t) : t.toPrecision(1))),
      ).map((axis, i) => (i === 1 ? decades(axis) : axis)),
      series: names.map((name) => {
        const [kind, layer] = kindAndLayer(name);
        return {
          stroke: colour(el, `--mg-train-${kind}`),
          width: 1.5,
          dash: DASHES[layer ?? 0],
          points: { show: false },
        };
      }),
    },
    names.length,
  );
}
