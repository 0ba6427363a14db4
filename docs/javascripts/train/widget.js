// The Train widget on "Backprop inside microgpt's training": the package's own training run
// (microgpt/course/live.py, which drives microgpt.train's train() with microgpt.optim's Adam) in the reader's
// browser, off the main thread, drawn as it goes. Nothing is fetched until the reader presses Start.
//
// States (data-state): idle -> loading -> running <-> paused -> done; error when Python cannot start.
// JavaScript asks for one tick at a time (about 50 ms of work: a step, or part of an evaluation), so a
// Pause takes effect as soon as the tick under way returns, and leaving the page ends the worker.
import { h } from "../dom.js";
import { settingsForm } from "./form.js";
import { gradChart, loadUPlot, lossChart } from "./charts.js";
import { lastLine, startPython } from "./runtime.js";
import { summary } from "./summary.js";

/**
 * @typedef {import("./runtime.js").RunInfo} RunInfo
 * @typedef {import("./runtime.js").Step} Step
 * @typedef {import("./runtime.js").Report} Report
 * @typedef {import("./runtime.js").Tick} Tick
 * @typedef {import("./form.js").Spec} Spec
 * @typedef {"idle" | "loading" | "running" | "paused" | "done" | "error" | "gone"} State
 * @typedef {ReturnType<typeof layout>} UI
 * @typedef {object} Widget   one Train widget's state (held here, not on its element)
 * @property {HTMLElement} el  @property {Spec} spec  @property {UI} ui  @property {State} state
 * @property {number} gen      bumped by Reset and by leaving: a tick answered for an older gen is dropped
 * @property {number} done     steps done  @property {number} ms  time spent running before `since`
 * @property {number} since    @property {number} [drawnAt]  @property {ReturnType<typeof setTimeout> | null} [drawing]
 * @property {boolean} [looping]
 * @property {import("./runtime.js").TrainPython | null} py
 * @property {Record<string, number>} values   the settings of the run
 * @property {RunInfo} info  @property {ReturnType<typeof summary>} text
 * @property {number[]} x  @property {(number | null)[]} lossY  @property {(number | null)[]} meanY
 * @property {(number | null)[]} heldY  @property {(number | null)[][]} gradY
 * @property {Step | null} last  @property {Report | null} held
 * @property {any} loss  @property {any} grads   the two uPlot charts (uPlot ships no types)
 * @property {MutationObserver | null} redraw
 */

const FILE = "microgpt-train.ckpt.json";
/** @type {Record<State, string>} */
const PRIMARY = {
  idle: "Start",
  loading: "Starting…",
  running: "Pause",
  paused: "Resume",
  done: "Run again",
  error: "Try again",
  gone: "Start",
};

/** @param {HTMLElement} el  @param {Spec} spec */
function layout(el, spec) {
  const form = settingsForm(spec);
  const parts = {
    form,
    primary: h("button", { type: "submit", class: "md-button md-button--primary mg-train__primary" }),
    reset: h("button", { type: "button", class: "md-button mg-train__reset", hidden: true }, "Reset"),
    download: h(
      "button",
      { type: "button", class: "md-button mg-train__download", hidden: true },
      "Download checkpoint",
    ),
    problem: h("div", { class: "mg-train__problem", hidden: true }),
    plots: h("div", { class: "mg-train__plots", hidden: true }),
    progress: h("progress", { class: "mg-train__progress", max: 1, hidden: true, "aria-label": "Starting Python" }),
  };
  const bar = h("div", { class: "mg-train__bar" }, parts.primary, parts.reset, parts.download, parts.progress);
  const formEl = h("form", { class: "mg-train__form", novalidate: true }, form.fieldset, bar);
  el.replaceChildren(formEl, parts.problem, parts.plots);
  return { ...parts, bar, formEl };
}

/** @param {Widget} w  @param {State} state */
function setState(w, state) {
  w.state = state;
  w.el.dataset.state = state;
  const { ui } = w;
  ui.primary.textContent = PRIMARY[state];
  if (state === "loading") ui.primary.setAttribute("aria-disabled", "true");
  else ui.primary.removeAttribute("aria-disabled");
  ui.form.fieldset.disabled = !["idle", "error"].includes(state);
  ui.reset.hidden = ["idle", "loading"].includes(state);
  ui.download.hidden = !(["paused", "done"].includes(state) && w.done > 0);
  ui.progress.hidden = state !== "loading";
}

/** @param {Widget} w */
function elapsed(w) {
  return (w.ms + (w.state === "running" ? performance.now() - w.since : 0)) / 1000;
}

const DRAW_EVERY_MS = 250; // the charts and tables are redrawn at most this often, in an animation frame

/** Redraw soon: at most every DRAW_EVERY_MS, so that the main thread stays free whatever the step rate. */
/** @param {Widget} w */
function show(w) {
  if (w.drawing) return;
  const wait = Math.max(0, DRAW_EVERY_MS - (performance.now() - (w.drawnAt ?? 0)));
  w.drawing = setTimeout(
    () =>
      requestAnimationFrame(() => {
        w.drawing = null;
        w.drawnAt = performance.now();
        if (w.loss) draw(w);
      }),
    wait,
  );
}

/** @param {Widget} w */
function draw(w) {
  const seconds = elapsed(w);
  w.text.update({
    step: w.done,
    steps: w.values.steps,
    rate: seconds > 0 ? w.done / seconds : 0,
    seconds,
    last: w.last,
    held: w.held,
  });
  w.loss.setData([w.x, w.lossY, w.meanY, w.heldY, w.x.map(() => w.info.uniform)]);
  w.grads.setData([w.x, ...w.info.names.map((_, i) => w.gradY[i])]);
}

/** @param {Widget} w  @param {Tick} out */
function take(w, out) {
  for (const s of out.steps) {
    w.x.push(s.step);
    w.lossY.push(s.loss);
    w.meanY.push(s.mean);
    w.heldY.push(null);
    s.norms.forEach((norm, i) => {
      w.gradY[i].push(norm > 0 ? norm : null); // a log scale has no 0
    });
    w.last = s;
    w.done = s.step;
    w.text.stepped(s);
  }
  for (const r of out.reports) {
    const at = w.x.indexOf(r.step);
    w.heldY[at] = r.held_out;
    w.held = r;
    w.text.sampled(r);
    const of = `${r.step === 0 ? "Before training" : `Step ${r.step} of ${w.values.steps}`}`;
    w.text.announce(`${of}: held-out loss ${r.held_out.toFixed(4)}; sampled ${r.samples.join(", ") || "nothing"}.`);
  }
  show(w);
}

/** @param {Widget} w  @param {number} gen */
async function loop(w, gen) {
  if (w.looping) return;
  w.looping = true;
  try {
    while (w.state === "running" && w.gen === gen) {
      const out = await /** @type {import("./runtime.js").TrainPython} */ (w.py).tick();
      if (w.gen !== gen) return; // reset while the tick ran
      take(w, out);
      if (out.finished) {
        w.ms += performance.now() - w.since;
        setState(w, "done");
        show(w);
        w.text.announce(`Finished: ${w.done} steps in ${elapsed(w).toFixed(1)} s. The checkpoint can be downloaded.`);
      }
    }
  } catch (err) {
    if (w.gen === gen && w.state !== "gone") failed(w, `Training stopped: ${lastLine(err)}`);
  } finally {
    w.looping = false;
  }
}

/** @param {Widget} w  @param {string} message */
function failed(w, message) {
  w.py?.stop();
  w.py = null;
  const command = `${w.spec.command} ${Object.entries(w.ui.form.typed())
    .map(([name, v]) => `${w.spec.settings[name].flag} ${v}`)
    .join(" ")}`;
  w.ui.problem.replaceChildren(
    h("p", {}, message),
    h("p", {}, "The same run on your machine, with microgpt installed: ", h("code", {}, command)),
  );
  w.ui.problem.hidden = false;
  setState(w, "error");
}

/** @param {Widget} w */
async function begin(w) {
  const values = w.ui.form.read();
  if (!values) return;
  w.values = values;
  w.ui.problem.hidden = true;
  const gen = ++w.gen;
  setState(w, "loading");
  w.text?.announce("Starting Python and microgpt…");
  try {
    w.py ??= startPython((_message, fraction) => {
      if (fraction != null) w.ui.progress.value = fraction;
      else w.ui.progress.removeAttribute("value");
    });
    const [uPlot] = await Promise.all([loadUPlot(), w.py.ready]);
    const info = await w.py.start(values);
    if (w.gen !== gen) return;
    mountRun(w, uPlot, info);
  } catch (err) {
    if (w.gen === gen && w.state !== "gone") failed(w, `Python could not start in this page: ${lastLine(err)}`);
    return;
  }
  w.since = performance.now();
  setState(w, "running");
  w.text.announce(`Training ${values.steps} steps.`);
  loop(w, gen);
}

/** @param {Widget} w  @param {any} uPlot  @param {RunInfo} info */
function mountRun(w, uPlot, info) {
  unmountRun(w);
  Object.assign(w, { info, x: [0], lossY: [null], meanY: [null], heldY: [null], gradY: info.names.map(() => [null]) });
  Object.assign(w, { done: 0, ms: 0, last: null, held: null });
  const lossBox = h("div", { class: "mg-train__chart" });
  const gradBox = h("div", { class: "mg-train__chart" });
  const label = (/** @type {string} */ text) => ({
    role: "img",
    "aria-label": `${text} (the numbers are in the tables below).`,
  });
  w.text = summary(info);
  w.ui.plots.replaceChildren(
    w.text.status,
    h(
      "figure",
      { class: "mg-train__figure" },
      h("div", label("Chart of the loss at each step"), lossBox),
      h(
        "figcaption",
        {},
        `Loss: each step's (faint), the mean of the last ${info.mean_window}, the held-out loss every ${w.spec.eval_every} steps (dots), and ln ${info.vocab_size} (dashed).`,
      ),
    ),
    h(
      "figure",
      { class: "mg-train__figure" },
      h("div", label("Chart of each matrix's gradient norm at each step"), gradBox),
      h(
        "figcaption",
        {},
        "Gradient norm of each matrix, log scale: colour by matrix, dashes by layer (see the table).",
      ),
    ),
    w.text.el,
  );
  w.ui.plots.hidden = false;
  w.loss = lossChart(uPlot, w.el, lossBox, w.values.steps, info.uniform);
  w.grads = gradChart(uPlot, w.el, gradBox, info.names, w.values.steps);
  w.redraw = new MutationObserver(() => {
    for (const u of [w.loss, w.grads]) u.redraw(false);
  });
  w.redraw.observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
}

/** @param {Widget} w */
function unmountRun(w) {
  w.redraw?.disconnect();
  clearTimeout(w.drawing ?? undefined);
  w.drawing = null;
  w.loss?.destroy();
  w.grads?.destroy();
  w.loss = w.grads = w.redraw = null;
  w.ui.plots.replaceChildren();
  w.ui.plots.hidden = true;
}

/** @param {Widget} w */
function primary(w) {
  if (w.state === "loading") return;
  if (w.state === "running") {
    w.ms += performance.now() - w.since;
    setState(w, "paused");
    w.text.announce(`Paused at step ${w.done}.`);
    show(w);
  } else if (w.state === "paused") {
    w.since = performance.now();
    setState(w, "running");
    w.text.announce(`Resumed at step ${w.done}.`);
    loop(w, w.gen);
  } else {
    if (w.state === "done") reset(w, false);
    begin(w);
  }
}

/** @param {Widget} w */
function reset(w, focus = true) {
  w.gen++;
  unmountRun(w);
  w.py?.end().catch(() => {});
  w.done = 0;
  setState(w, "idle");
  if (focus) w.ui.primary.focus();
}

/** @param {Widget} w */
async function download(w) {
  if (!w.py) return;
  const text = await w.py.checkpoint();
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const link = h("a", { href: url, download: FILE, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  w.text.announce(`Downloaded ${FILE}: python -m microgpt sample --ckpt ${FILE} reads it.`);
}

/** Mount the widget on its element (div.mg-train[data-mg-train], from tools/mgsite/mgsite/shortcodes.py). */
/** @param {HTMLElement} el */
export function mountTrain(el) {
  /** @type {Spec} */
  const spec = JSON.parse(el.dataset.mgTrain ?? "null");
  const w = /** @type {Widget} */ ({ el, spec, ui: layout(el, spec), gen: 0, done: 0, py: null, state: "idle" });
  setState(w, "idle");
  w.ui.formEl.addEventListener("submit", (event) => {
    event.preventDefault();
    primary(w);
  });
  w.ui.reset.addEventListener("click", () => reset(w));
  w.ui.download.addEventListener("click", () =>
    download(w).catch((err) => w.text.announce(`No checkpoint: ${lastLine(err)}`)),
  );
  live.add(w);
}

/** The widgets mounted in this document. @type {Set<Widget>} */
const live = new Set();

/** Instant navigation swaps the page and keeps the document: a widget no longer in it stops its work. */
export function stopGone() {
  for (const w of live) {
    if (w.el.isConnected) continue;
    live.delete(w);
    w.state = "gone";
    w.gen++;
    w.py?.stop();
    w.redraw?.disconnect();
  }
}
