// What the charts show, as text: the run so far and each matrix's gradient norm in two tables (also the
// key to the charts' colours), the names sampled, and one polite status line that speaks only when
// something happens (start, pause, an evaluation, the end), not at every step.
import { h } from "../dom.js";
import { DASHES, kindAndLayer } from "./charts.js";

/** @typedef {import("./runtime.js").RunInfo} RunInfo */

const f4 = (/** @type {number | null | undefined} */ x) => (x == null ? "–" : x.toFixed(4));

/** @param {string} kind  @param {number | null} layer */
function swatch(kind, layer) {
  const style = `--swatch: var(--mg-train-${kind}); --dash: ${DASHES[layer ?? 0].length ? "dashed" : "solid"}`;
  return h("span", { class: "mg-train__swatch", "aria-hidden": "true", style });
}

/** @param {string} caption  @param {[string, string | HTMLElement, HTMLElement?][]} rows */
function table(caption, rows) {
  const body = h("tbody");
  const cells = rows.map(([key, label, mark]) => {
    const value = h("td", {}, "–");
    body.append(h("tr", {}, h("th", { scope: "row" }, ...(mark ? [mark, " "] : []), label), value));
    return [key, value];
  });
  return {
    el: h("table", { class: "mg-train__table" }, h("caption", {}, caption), body),
    cells: new Map(/** @type {[string, HTMLElement][]} */ (cells)),
  };
}

/** The summary of a run: {el, update(now), announce(text), samples(report)}. */
/** @param {RunInfo} info */
export function summary(info) {
  const key = (/** @type {string} */ v) =>
    h("span", { class: "mg-train__swatch", "aria-hidden": "true", style: `--swatch: var(--mg-train-${v})` });
  const run = table("The run so far", [
    ["step", "Step"],
    ["rate", "Steps per second"],
    ["elapsed", "Elapsed"],
    ["loss", "Loss of the last step", key("step")],
    ["mean", `Mean loss of the last ${info.mean_window} steps`, key("mean")],
    ["held", "Held-out loss", key("held")],
    ["uniform", `ln ${info.vocab_size} (a uniform guess)`, key("uniform")],
  ]);
  /** @type {HTMLElement} */ (run.cells.get("uniform")).textContent = f4(info.uniform);
  const grads = table(
    "Gradient norm of each matrix at the last step",
    info.names.map(
      (name) =>
        /** @type {[string, HTMLElement, HTMLElement]} */ ([
          name,
          h("code", {}, name),
          swatch(kindAndLayer(name)[0], kindAndLayer(name)[1]),
        ]),
    ),
  );
  const names = h("ul", { class: "mg-train__samples" });
  const losses = h("ol", { class: "mg-train__losses" });
  const status = h("p", { class: "mg-train__status", role: "status" });
  const el = h(
    "div",
    { class: "mg-train__summary" },
    run.el,
    grads.el,
    h("div", {}, h("p", { class: "mg-train__samples-title" }, "Names sampled from the model"), names),
    h("details", { class: "mg-train__every" }, h("summary", {}, "Every step's loss"), losses),
  );
  return {
    el,
    status,
    announce: (/** @type {string} */ text) => (status.textContent = text),
    /** @param {{ step: number, steps: number, rate: number, seconds: number, last: import("./runtime.js").Step | null, held: import("./runtime.js").Report | null }} now */
    update({ step, steps, rate, seconds, last, held }) {
      const cell = (/** @type {string} */ key) => /** @type {HTMLElement} */ (run.cells.get(key));
      cell("step").textContent = `${step} of ${steps}`;
      cell("rate").textContent = rate ? rate.toFixed(1) : "–";
      cell("elapsed").textContent = `${seconds.toFixed(1)} s`;
      cell("loss").textContent = f4(last?.loss);
      cell("mean").textContent = f4(last?.mean);
      cell("held").textContent = held ? `${f4(held.held_out)} (at step ${held.step})` : "–";
      info.names.forEach((name, i) => {
        const norm = last?.norms[i];
        /** @type {HTMLElement} */ (grads.cells.get(name)).textContent = norm == null ? "–" : norm.toPrecision(3);
      });
    },
    /** @param {import("./runtime.js").Step} s */
    stepped(s) {
      losses.append(h("li", {}, f4(s.loss)));
    },
    /** @param {import("./runtime.js").Report} report */
    sampled(report) {
      const item = h("li", {}, h("span", { class: "mg-train__at" }, `step ${report.step}: `));
      item.append(report.samples.map((s) => s || "(empty)").join(", "));
      names.prepend(item);
    },
  };
}
